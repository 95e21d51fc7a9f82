import { fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FileTree } from "./file-tree.tsx";

const href = (p: string) => `/f?file=${encodeURIComponent(p)}`;

/** 150 files in 3 folders of 50, plus a README at the top: over the all-open limit. */
const BIG = [
  "README.md",
  ...["api", "lib", "web"].flatMap((dir) => Array.from({ length: 50 }, (_, i) => `${dir}/mod${i}.js`)),
];

function links() {
  return within(screen.getByRole("list", { name: "Files" })).queryAllByRole("link");
}

function folder(name: string) {
  return screen.getByText(`${name}/`, { selector: "summary" });
}

function toggle(name: string) {
  const details = folder(name).parentElement as HTMLDetailsElement;
  details.open = !details.open;
  fireEvent(details, new Event("toggle"));
}

describe("FileTree", () => {
  it("renders a big project's folded folders without their files: only the open file's folder has rows", () => {
    render(<FileTree paths={BIG} current="lib/mod3.js" filtered={false} hrefFor={href} />);
    const names = links().map((a) => a.getAttribute("aria-label"));
    expect(names).toContain("README.md");
    expect(names).toContain("lib/mod3.js");
    expect(names.filter((n) => n!.startsWith("api/"))).toEqual([]);
    expect(names.filter((n) => n!.startsWith("web/"))).toEqual([]);
    expect(links()).toHaveLength(51);
  });

  it("renders a folder's files when it is opened, and drops them when it folds again", () => {
    render(<FileTree paths={BIG} current="README.md" filtered={false} hrefFor={href} />);
    expect(screen.queryByRole("link", { name: "api/mod7.js" })).toBeNull();
    toggle("api");
    expect(screen.getByRole("link", { name: "api/mod7.js" }).getAttribute("href")).toBe(href("api/mod7.js"));
    toggle("api");
    expect(screen.queryByRole("link", { name: "api/mod7.js" })).toBeNull();
  });

  it("opens every folder with a match while a filter is typed, and folds them again when it is cleared", () => {
    const { rerender } = render(
      <FileTree paths={BIG.filter((p) => p.includes("mod4"))} current="README.md" filtered hrefFor={href} />,
    );
    expect(screen.getByRole("link", { name: "api/mod4.js" })).toBeTruthy();
    expect(screen.getByRole("link", { name: "web/mod49.js" })).toBeTruthy();
    rerender(<FileTree paths={BIG} current="README.md" filtered={false} hrefFor={href} />);
    expect(links()).toHaveLength(1);
  });

  it("opens the folders along a file opened from elsewhere (a search hit)", () => {
    const { rerender } = render(<FileTree paths={BIG} current="README.md" filtered={false} hrefFor={href} />);
    rerender(<FileTree paths={BIG} current="web/mod12.js" filtered={false} hrefFor={href} />);
    expect(screen.getByRole("link", { name: "web/mod12.js" }).getAttribute("aria-current")).toBe("page");
  });

  it("opens every folder of a small project", () => {
    render(<FileTree paths={["a/x.js", "b/c/y.js"]} current={undefined} filtered={false} hrefFor={href} />);
    expect(links().map((a) => a.getAttribute("aria-label"))).toEqual(["a/x.js", "b/c/y.js"]);
  });
});
