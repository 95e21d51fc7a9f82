import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { renderWithTrpc, trpcError } from "@/test/helpers/trpc-dom.tsx";
import { StartReviewDialog } from "./start-review-dialog.tsx";

const push = vi.fn();
vi.mock("next/navigation", () => ({ useRouter: () => ({ push }), usePathname: () => "/reviews" }));

/** The server's keyless default (no key configured), then two workspace connections, the second the default. */
const connections = [
  { uid: null, name: "Server default", provider: "anthropic", model: "claude-x", isDefault: false, usable: false },
  { uid: "c-openai", name: "Team OpenAI", provider: "openai", model: "gpt-x", isDefault: false, usable: true },
  { uid: "c-claude", name: "Team Claude", provider: "anthropic", model: "claude-y", isDefault: true, usable: true },
];

function answers(over: Record<string, unknown> = {}) {
  return {
    "projects.list": [
      { uid: "p-api", name: "api" },
      { uid: "p-web", name: "web" },
    ],
    "prompts.list": [
      { uid: "pr-1", name: "Security", isDefault: false },
      { uid: "pr-2", name: "House rules", isDefault: true },
    ],
    "providers.list": connections,
    "providers.catalog": { providers: [{ id: "anthropic", models: [{ id: "claude-y", label: "Claude Y" }] }] },
    "reviews.start": { uid: "r-new" },
    ...over,
  };
}

const onClose = vi.fn();
function dialog(over: Record<string, unknown> = {}, projectUid?: string) {
  return renderWithTrpc(<StartReviewDialog open onClose={onClose} projectUid={projectUid} />, answers(over));
}

const select = (name: string) => screen.getByLabelText(name) as HTMLSelectElement;
const startCalls = (calls: { path: string; input: unknown }[]) => calls.filter((c) => c.path === "reviews.start");
const submit = () => fireEvent.click(screen.getByRole("button", { name: "Start review" }));

describe("StartReviewDialog", () => {
  beforeEach(() => {
    push.mockClear();
    onClose.mockClear();
  });

  it("starts with the static engine on the whole project, the first project chosen", async () => {
    dialog();
    await waitFor(() => expect(select("Project").value).toBe("p-api"));
    expect(screen.getByRole("radio", { name: /Static analysis/ })).toHaveProperty("checked", true);
    expect(screen.getByRole("radio", { name: "Whole project" })).toHaveProperty("checked", true);
    expect(select("Severity floor").value).toBe("info");
    // No model section for the static engine.
    expect(screen.queryByLabelText("Model connection")).toBeNull();
  });

  it("preselects the workspace's default connection and prompt for the agent, never the keyless server default", async () => {
    dialog();
    fireEvent.click(screen.getByRole("radio", { name: /Review agent/ }));
    await waitFor(() => expect(select("Model connection").value).toBe("c-claude"));
    expect(select("Prompt").value).toBe("pr-2");
    const keyless = screen.getByRole("option", { name: /Server default · claude-x \(no key configured\)/ });
    expect(keyless).toHaveProperty("disabled", true);
    expect(screen.getByText("Leave empty for claude-y.")).toBeTruthy();
  });

  it("with only the keyless server default, chooses nothing, links to adding a provider, and says so on submit", async () => {
    const { calls } = dialog({ "providers.list": [connections[0]] });
    fireEvent.click(screen.getByRole("radio", { name: /Review agent/ }));
    await screen.findByRole("link", { name: "Add a model provider" });
    expect(select("Model connection").value).toBe("");
    expect(screen.getByRole("option", { name: "No model connection yet" })).toBeTruthy();
    await waitFor(() => expect(select("Project").value).toBe("p-api"));
    submit();
    expect(screen.getByRole("alert").textContent).toBe(
      "Choose the model connection the agent uses. An owner adds one in Settings → Model providers.",
    );
    expect(startCalls(calls)).toEqual([]);
  });

  it("asks for a project when the workspace has none", async () => {
    const { calls } = dialog({ "projects.list": [] });
    await screen.findByRole("option", { name: /No projects yet/ });
    submit();
    expect(screen.getByRole("alert").textContent).toBe("Choose the project to review.");
    expect(startCalls(calls)).toEqual([]);
  });

  it("asks for paths, and for both refs of a diff, before sending anything", async () => {
    const { calls } = dialog({}, "p-fixed");
    expect(screen.queryByLabelText("Project")).toBeNull();
    fireEvent.click(screen.getByRole("radio", { name: "Paths or globs" }));
    fireEvent.change(screen.getByLabelText("Paths"), { target: { value: "  \n " } });
    submit();
    expect(screen.getByRole("alert").textContent).toBe(
      "List at least one path or glob, one per line (e.g. src/api/** or server.js).",
    );
    fireEvent.click(screen.getByRole("radio", { name: /Changes between two git refs/ }));
    expect((screen.getByLabelText("Head ref") as HTMLInputElement).value).toBe("HEAD");
    submit();
    expect(screen.getByRole("alert").textContent).toBe(
      "A diff review needs both refs: the base (e.g. main) and the head (e.g. HEAD or a branch).",
    );
    expect(startCalls(calls)).toEqual([]);
  });

  it("sends the review as chosen, then opens it", async () => {
    const { calls } = dialog({}, "p-fixed");
    fireEvent.click(screen.getByRole("radio", { name: "Paths or globs" }));
    fireEvent.change(screen.getByLabelText("Paths"), { target: { value: "src/api/**\n\n server.js " } });
    fireEvent.change(select("Severity floor"), { target: { value: "high" } });
    submit();
    await waitFor(() => expect(push).toHaveBeenCalledWith("/reviews/r-new"));
    expect(onClose).toHaveBeenCalled();
    expect(startCalls(calls).map((c) => c.input)).toEqual([
      {
        projectUid: "p-fixed",
        engine: "static",
        scope: { kind: "paths", paths: ["src/api/**", "server.js"] },
        settings: { verify: false, unverified: "keep", minConfidence: 0, minSeverity: "high" },
      },
    ]);
  });

  it("sends the agent's connection, prompt and budget", async () => {
    const { calls } = dialog({}, "p-fixed");
    fireEvent.click(screen.getByRole("radio", { name: /Review agent/ }));
    await waitFor(() => expect(select("Model connection").value).toBe("c-claude"));
    await waitFor(() => expect(select("Prompt").value).toBe("pr-2"));
    fireEvent.change(screen.getByLabelText("Max cost (USD)"), { target: { value: "2" } });
    submit();
    await waitFor(() => expect(startCalls(calls)).toHaveLength(1));
    expect(startCalls(calls)[0]!.input).toEqual({
      projectUid: "p-fixed",
      engine: "agent",
      scope: { kind: "project" },
      promptUid: "pr-2",
      connectionUid: "c-claude",
      model: undefined,
      budget: { maxIterations: 100, maxCostUsd: 2 },
      settings: { verify: true, unverified: "keep", minConfidence: 0, minSeverity: "info" },
    });
  });

  it("shows the server's error for a field in that field's section", async () => {
    dialog(
      { "reviews.start": trpcError("Invalid input", { fieldErrors: { scope: ["That ref does not exist."] } }) },
      "p-fixed",
    );
    submit();
    expect((await screen.findByRole("alert")).textContent).toBe("That ref does not exist.");
    expect(push).not.toHaveBeenCalled();
  });
});
