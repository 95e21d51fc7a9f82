// The test runs under vitest on the server; the isomorphic rule is for the module it tests.
import { describe, expect, it } from "vitest";
import { safeNextPath } from "./safe-next.ts";

describe("safeNextPath", () => {
  it.each([
    ["/", "/"],
    ["/projects", "/projects"],
    ["/projects/0b3f/files?file=src/app.ts&line=12#L12", "/projects/0b3f/files?file=src/app.ts&line=12#L12"],
    ["/reviews?status=done", "/reviews?status=done"],
    ["/a/../settings", "/settings"],
    ["/search?q=//not-a-host", "/search?q=//not-a-host"],
    ["/files/%E2%9C%93", "/files/%E2%9C%93"],
  ])("keeps the same-site path %s", (next, expected) => expect(safeNextPath(next)).toBe(expected));

  it.each([
    null,
    undefined,
    "",
    "//evil.example",
    "//evil.example/path",
    "/\\evil.example",
    "\\/evil.example",
    "\\\\evil.example",
    "/%2F%2Fevil.example",
    "/%2f/evil.example",
    "/%5Cevil.example",
    "/%5c%5cevil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "https://evil.example",
    "http://evil.example/",
    "HTTPS://evil.example",
    "evil.example",
    "projects",
    "/\t/evil.example",
    "/\n/evil.example",
    "\t//evil.example",
    "/\r\n/evil.example",
    "/%",
    "/%E0%A4%A",
    `/${"a".repeat(3000)}`,
  ])("refuses %j (→ /)", (next) => expect(safeNextPath(next)).toBe("/"));
});
