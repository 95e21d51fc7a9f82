import { describe, expect, it } from "vitest";
import { searchFields } from "./fields.ts";
import { docText } from "./doc-text.ts";

const PY = `def copy2(src, dst, *, follow_symlinks=True):
    """Copy data and metadata. Return the file's destination.

    The destination may be a directory.

    Args:
        src: where from
    """
    # a line comment about how, not what
    copyfile(src, dst)
`;

const JS = `/**
 * Serialize a cookie name-value pair into a header string.
 *
 * @param {string} name
 */
function serialize(name, val) {
  // encode first
  return name + "=" + val;
}
`;

describe("docText", () => {
  it("keeps a Python docstring's description, not its later paragraphs, sections or comments", () => {
    expect(docText(PY, "python")).toBe("Copy data and metadata. Return the file's destination.");
  });

  it("keeps a doc comment's description up to its tags, without the stars or line comments", () => {
    expect(docText(JS, "javascript")).toBe("Serialize a cookie name-value pair into a header string.");
  });

  it("has nothing for code without docs, or for prose (which is all words already)", () => {
    expect(docText("function f() { return 1; }\n", "javascript")).toBe("");
    expect(docText("/** not a doc comment in prose */", "markdown")).toBe("");
  });
});

describe("searchFields", () => {
  it("indexes what the docs say a function does with its names, so a question in those words finds it", () => {
    const { namesText, searchText } = searchFields({
      path: "shutil.py",
      symbolPath: "copy2",
      text: PY,
      language: "python",
    });
    expect(namesText).toContain("metadata");
    expect(namesText).toContain("destination");
    expect(namesText).not.toContain("directory");
    expect(namesText).not.toContain("copyfile");
    // The body still has everything.
    expect(searchText).toContain("copyfile");
    expect(searchText).toContain("directory");
  });

  it("without a language, the names field is the path and names only", () => {
    const { namesText } = searchFields({ path: "shutil.py", symbolPath: "copy2", text: PY });
    expect(namesText).not.toContain("metadata");
  });
});
