import { fireEvent, render, screen, within } from "@testing-library/react";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FindingsList, type FindingsListProps } from "./findings-list.tsx";
import type { ReviewFindingRow } from "./types.ts";

vi.mock("next/navigation", () => ({ usePathname: () => "/reviews/r1" }));

let n = 0;
function finding(over: Partial<ReviewFindingRow>): ReviewFindingRow {
  n += 1;
  return {
    fingerprint: `fp-${n}`,
    title: `Finding ${n}`,
    severity: "medium",
    category: "injection",
    file: "src/app.ts",
    startLine: n,
    endLine: n,
    confidence: 0.8,
    explanation: "Why it matters.",
    evidence: "",
    suggestedFix: null,
    diff: null,
    verification: null,
    verificationNote: null,
    source: "agent",
    ruleId: null,
    trace: null,
    dismissed: false,
    votes: [],
    threadCount: 0,
    ...over,
  } as unknown as ReviewFindingRow;
}

const findings = [
  finding({ title: "SQL built from the request", severity: "critical", file: "src/db.ts" }),
  finding({ title: "Token logged", severity: "high", file: "src/log.ts" }),
  finding({ title: "Open redirect", severity: "high", file: "src/auth.ts", dismissed: true }),
  finding({ title: "Missing rate limit", severity: "low", file: "src/api.ts" }),
];

function list(over: Partial<FindingsListProps> = {}) {
  return render(
    <FindingsList
      findings={findings}
      projectUid={null}
      snapshotUid={null}
      canEdit
      pending={null}
      onDismiss={() => {}}
      {...over}
    />,
  );
}

/** The titles of the findings the list shows, in order. */
const shownTitles = () =>
  [...screen.getByRole("list", { name: "Findings" }).querySelectorAll("[data-finding-toggle]")].map(
    (toggle) => toggle.querySelector("span > span")?.textContent,
  );

describe("FindingsList", () => {
  // The list renders only the rows in view; happy-dom lays nothing out (every box is 0 px), so the
  // scroller gets a height for the virtualizer to fill.
  beforeAll(() => {
    Object.defineProperty(HTMLElement.prototype, "clientHeight", { configurable: true, get: () => 600 });
  });
  afterAll(() => {
    delete (HTMLElement.prototype as { clientHeight?: number }).clientHeight;
  });

  it("lists every finding, the worst first (then by file), with how many are shown", () => {
    list();
    expect(shownTitles()).toEqual([
      "SQL built from the request",
      "Open redirect",
      "Token logged",
      "Missing rate limit",
    ]);
    expect(screen.getByText("4 of 4 shown")).toBeTruthy();
  });

  it("filters by severity with the badges, and pressing the pressed one shows all again", () => {
    list();
    const high = within(screen.getByRole("group", { name: "Severity filter" })).getAllByRole("button")[1]!;
    fireEvent.click(high);
    expect(high.getAttribute("aria-pressed")).toBe("true");
    expect(shownTitles()).toEqual(["Open redirect", "Token logged"]);
    expect(screen.getByText("2 of 4 shown")).toBeTruthy();
    fireEvent.click(high);
    expect(shownTitles()).toHaveLength(4);
  });

  it("hides false positives, or shows only them", () => {
    list();
    const select = screen.getByRole("combobox", { name: "False positives" });
    fireEvent.change(select, { target: { value: "hide" } });
    expect(shownTitles()).toEqual(["SQL built from the request", "Token logged", "Missing rate limit"]);
    fireEvent.change(select, { target: { value: "only" } });
    expect(shownTitles()).toEqual(["Open redirect"]);
    expect(screen.getByText("false positive")).toBeTruthy();
  });

  it("filters by the team's verdict only when the list knows the verdicts", () => {
    const view = list();
    expect(screen.queryByRole("combobox", { name: "Team verdict" })).toBeNull();
    view.unmount();
    list({ teamVerdictOf: (f) => (f.title === "Token logged" ? "real" : "unjudged") });
    const verdict = screen.getByRole("combobox", { name: "Team verdict" });
    fireEvent.change(verdict, { target: { value: "real" } });
    expect(shownTitles()).toEqual(["Token logged"]);
    fireEvent.change(verdict, { target: { value: "unjudged" } });
    expect(shownTitles()).toEqual(["SQL built from the request", "Open redirect", "Missing rate limit"]);
  });

  it("opens a finding for its explanation, and marks it a false positive", () => {
    const onDismiss = vi.fn();
    const onOpen = vi.fn();
    list({ onDismiss, onOpen });
    const toggle = screen.getByRole("button", { name: /Token logged/ });
    expect(screen.queryByText("Why it matters.")).toBeNull();
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(screen.getByText("Why it matters.")).toBeTruthy();
    expect(onOpen).toHaveBeenCalledWith(expect.objectContaining({ title: "Token logged" }));
    fireEvent.click(screen.getByRole("button", { name: "Mark false positive" }));
    expect(onDismiss).toHaveBeenCalledWith(expect.objectContaining({ title: "Token logged" }), true);
    expect(screen.getByRole("link", { name: "Link to this finding" }).getAttribute("href")).toBe(
      `/reviews/r1?finding=${findings[1]!.fingerprint}`,
    );
  });

  it("opens the finding a link points at", () => {
    list({ linked: findings[3]!.fingerprint });
    expect(screen.getByRole("button", { name: /Missing rate limit/ }).getAttribute("aria-expanded")).toBe("true");
  });

  it("says so when no finding matches the filters", () => {
    list();
    fireEvent.change(screen.getByRole("combobox", { name: "Minimum confidence" }), { target: { value: "0.9" } });
    expect(shownTitles()).toEqual([]);
    expect(screen.getByText("No finding matches these filters.")).toBeTruthy();
    expect(screen.getByText("0 of 4 shown")).toBeTruthy();
  });

  it("shows the empty state, not filters, for a review without findings", () => {
    list({ findings: [] });
    expect(screen.getByText("No findings")).toBeTruthy();
    expect(screen.getByText(/Nothing at or above this review’s thresholds/)).toBeTruthy();
    expect(screen.queryByRole("group", { name: "Severity filter" })).toBeNull();
  });
});
