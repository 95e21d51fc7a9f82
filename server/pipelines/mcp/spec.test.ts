import { describe, expect, it } from "vitest";
import { McpSpecError, describeSpec, parseServerRef, splitCommandLine } from "./spec.ts";

describe("parseServerRef", () => {
  it("leaves a server directory to the registry", () => {
    expect(parseServerRef("servers/retriever")).toBeUndefined();
    expect(parseServerRef("./servers/http_tools")).toBeUndefined();
  });

  it("reads an http(s) URL as Streamable HTTP and stdio: as a command line", () => {
    expect(parseServerRef("https://tools.example/mcp")).toEqual({ url: "https://tools.example/mcp", headers: {} });
    expect(parseServerRef("stdio:python -m my_server --name 'two words'")).toEqual({
      command: "python",
      args: ["-m", "my_server", "--name", "two words"],
      env: {},
      inheritEnv: false,
    });
  });

  it("reads the mapping form with env, cwd and headers", () => {
    expect(parseServerRef({ command: "node", args: ["srv.js"], env: { MODE: "fast" }, cwd: "tools" })).toEqual({
      command: "node",
      args: ["srv.js"],
      env: { MODE: "fast" },
      inheritEnv: false,
      cwd: "tools",
    });
    expect(parseServerRef({ url: "http://127.0.0.1:9000/mcp", headers: { authorization: "Bearer x" } })).toEqual({
      url: "http://127.0.0.1:9000/mcp",
      headers: { authorization: "Bearer x" },
    });
  });

  it("refuses malformed entries with a message that says what to write", () => {
    expect(() => parseServerRef("stdio:   ")).toThrow(/has no command after `stdio:`/);
    expect(() => parseServerRef({ command: "" })).toThrow(McpSpecError);
    expect(() => parseServerRef({ command: "x", args: "not-a-list" })).toThrow(/args: .*Write `\{command/);
    expect(() => parseServerRef({ url: "ftp://x/mcp" })).toThrow(/url: `url` must be an http/);
    expect(() => parseServerRef({ command: "x", env: { "BAD NAME": "1" } })).toThrow(/env.BAD NAME: Invalid key/);
    expect(() => parseServerRef({ command: "x", shell: true })).toThrow(McpSpecError);
  });
});

describe("splitCommandLine", () => {
  it("splits like a shell without expanding anything", () => {
    expect(splitCommandLine(`a  "b c" 'd "e"' f\\ g "h\\"i" $HOME;rm`)).toEqual([
      "a",
      "b c",
      'd "e"',
      "f g",
      'h"i',
      "$HOME;rm",
    ]);
    expect(splitCommandLine(`x '' y`)).toEqual(["x", "", "y"]);
  });

  it("refuses an unterminated quote", () => {
    expect(() => splitCommandLine(`python "unclosed`)).toThrow(/Unterminated " quote/);
    expect(() => splitCommandLine(`python 'unclosed`)).toThrow(/Unterminated ' quote/);
  });

  it("describeSpec quotes what needs quoting and never shows env or headers", () => {
    expect(describeSpec({ command: "python", args: ["-m", "x y"], env: { SECRET: "k" }, inheritEnv: false })).toBe(
      "python -m 'x y'",
    );
    expect(describeSpec({ url: "https://h/mcp", headers: { authorization: "Bearer k" } })).toBe("https://h/mcp");
  });
});
