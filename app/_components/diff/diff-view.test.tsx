import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { parseUnifiedDiff } from "@/server/shared/diff-lines.ts";
import { DiffView } from "./diff-view.tsx";

const FIX = `--- a/src/db.ts
+++ b/src/db.ts
@@ -10,3 +10,3 @@
 const id = req.query.id;
-db.query("SELECT * FROM users WHERE id = " + id);
+db.query("SELECT * FROM users WHERE id = ?", [id]);
 return rows;
`;

describe("DiffView", () => {
  it("shows a suggested fix's lines with their signs and both sides' line numbers", () => {
    render(<DiffView lines={parseUnifiedDiff(FIX)} label="Suggested fix" title="Fix" />);
    const diff = screen.getByLabelText("Suggested fix diff");
    expect(screen.getByRole("heading", { name: "Fix" })).toBeTruthy();
    const rows = [...diff.querySelectorAll("[data-kind]")].map((r) => [r.getAttribute("data-kind"), r.textContent]);
    expect(rows).toEqual([
      ["meta", "--- a/src/db.ts"],
      ["meta", "+++ b/src/db.ts"],
      ["hunk", "@@ -10,3 +10,3 @@"],
      ["same", "1010 const id = req.query.id;"],
      ["del", '11−db.query("SELECT * FROM users WHERE id = " + id);'],
      ["add", '11+db.query("SELECT * FROM users WHERE id = ?", [id]);'],
      ["same", "1212 return rows;"],
    ]);
  });

  it("leaves the numbers out when the diff has none, and renders text as text", () => {
    render(<DiffView lines={[{ kind: "add", text: "<img src=x onerror=alert(1)>" }]} label="Proposal" />);
    const diff = screen.getByLabelText("Proposal diff");
    expect(diff.textContent).toBe("+<img src=x onerror=alert(1)>");
    expect(diff.querySelector("img")).toBeNull();
  });

  it("says there are no changes instead of an empty box", () => {
    render(<DiffView lines={[{ kind: "same", text: "a", old: 1, new: 1 }]} label="Version 3" />);
    expect(screen.getByText("Version 3: no changes.")).toBeTruthy();
    expect(screen.queryByLabelText("Version 3 diff")).toBeNull();
  });
});
