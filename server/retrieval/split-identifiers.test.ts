import { describe, expect, it } from "vitest";
import { splitIdentifier, splitIdentifiersInText } from "./split-identifiers.ts";

describe("splitIdentifier", () => {
  it.each([
    ["parseConfigFile", ["parse", "Config", "File"]],
    ["MAX_RETRY_COUNT", ["MAX", "RETRY", "COUNT"]],
    ["HTTPServer2", ["HTTP", "Server", "2"]],
    ["XMLHttpRequest", ["XML", "Http", "Request"]],
    ["getURLs", ["get", "URL", "s"]],
    ["sha256sum", ["sha", "256", "sum"]],
    ["kebab-case-name", ["kebab", "case", "name"]],
    ["$scope", ["scope"]],
    ["__init__", ["init"]],
    ["读取文件Name", ["读取文件", "Name"]],
  ])("%s", (id, parts) => {
    expect(splitIdentifier(id)).toEqual(parts);
  });
});

describe("splitIdentifiersInText", () => {
  it("replaces compound identifiers by their lower-cased parts", () => {
    expect(splitIdentifiersInText("parseConfigFile")).toBe("parse config file");
    expect(splitIdentifiersInText("const cfg = parseConfigFile(PATH_TO_CFG);")).toBe(
      "const cfg parse config file path to cfg",
    );
  });
  it("can keep the whole identifier for exact-name matches", () => {
    expect(splitIdentifiersInText("readJSON()", { keepOriginal: true })).toBe("readjson read json");
  });
  it("has nothing to say about punctuation-only text", () => {
    expect(splitIdentifiersInText("() => {};")).toBe("");
  });
});
