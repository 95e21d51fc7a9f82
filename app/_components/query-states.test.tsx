import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { QueryList } from "./query-states.tsx";

function query<T>(over: Partial<{ isPending: boolean; isError: boolean; error: unknown; data: T[] }>) {
  return { isPending: false, isError: false, error: null, data: undefined, refetch: vi.fn(), ...over };
}

const row = (name: string) => <li key={name}>{name}</li>;

describe("QueryList", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("renders its skeleton at once (the server's HTML has it), shown by CSS only after 250 ms: a quick answer never flickers", () => {
    render(<QueryList query={query<string>({ isPending: true })} label="Projects" empty="none" children={row} />);
    const skeleton = screen.getByLabelText("Loading");
    // globals.css: .appear-later is transparent until its animation delay has passed.
    expect(skeleton.classList.contains("appear-later")).toBe(true);
    expect(skeleton.style.animationDelay).toBe("250ms");
  });

  it("lists the rows under the list's name", () => {
    render(<QueryList query={query({ data: ["api", "web"] })} label="Projects" empty="none" children={row} />);
    const list = screen.getByRole("list", { name: "Projects" });
    expect([...list.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["api", "web"]);
  });

  it("shows the empty state, not an empty card, when there are no rows", () => {
    render(
      <QueryList query={query<string>({ data: [] })} label="Projects" empty={<p>No projects yet.</p>} children={row} />,
    );
    expect(screen.getByText("No projects yet.")).toBeTruthy();
    expect(screen.queryByRole("list")).toBeNull();
  });

  it("shows the server's message for a failure, and Try again asks once more", () => {
    const failed = query<string>({ isError: true, error: { message: "You are not a member of this workspace." } });
    render(<QueryList query={failed} label="Projects" empty="none" children={row} />);
    expect(screen.getByText("You are not a member of this workspace.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: /try again/i }));
    expect(failed.refetch).toHaveBeenCalledTimes(1);
  });
});
