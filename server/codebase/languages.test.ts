import { describe, expect, it } from "vitest";
import { detectLanguage, isBinary, languageFromPath, languageFromShebang, LANGUAGE_IDS } from "./languages.ts";

describe("language detection", () => {
  it("by extension, for the tree-sitter languages and the rest", () => {
    const cases: [string, string][] = [
      ["src/a.ts", "typescript"],
      ["a.d.ts", "typescript"],
      ["a.mts", "typescript"],
      ["App.tsx", "tsx"],
      ["a.js", "javascript"],
      ["a.jsx", "javascript"],
      ["a.cjs", "javascript"],
      ["a.py", "python"],
      ["a.pyi", "python"],
      ["main.go", "go"],
      ["lib.rs", "rust"],
      ["Main.java", "java"],
      ["a.c", "c"],
      ["a.h", "c"],
      ["a.cpp", "cpp"],
      ["a.hpp", "cpp"],
      ["a.cs", "csharp"],
      ["a.rb", "ruby"],
      ["a.php", "php"],
      ["a.kt", "kotlin"],
      ["a.swift", "swift"],
      ["a.sh", "shell"],
      ["a.sql", "sql"],
      ["a.yml", "yaml"],
      ["a.YAML", "yaml"],
      ["a.json", "json"],
      ["a.md", "markdown"],
      ["a.html", "html"],
      ["a.css", "css"],
      ["a.scss", "scss"],
      ["a.vue", "vue"],
      ["main.tf", "hcl"],
      ["a.proto", "protobuf"],
      ["notes.txt", "text"],
    ];
    for (const [file, lang] of cases) expect(languageFromPath(file), file).toBe(lang);
  });

  it("by file name", () => {
    expect(languageFromPath("Dockerfile")).toBe("dockerfile");
    expect(languageFromPath("deploy/Dockerfile.prod")).toBe("dockerfile");
    expect(languageFromPath("Containerfile")).toBe("dockerfile");
    expect(languageFromPath("api.dockerfile")).toBe("dockerfile");
    expect(languageFromPath("Makefile")).toBe("makefile");
    expect(languageFromPath("GNUmakefile")).toBe("makefile");
    expect(languageFromPath("rules.mk")).toBe("makefile");
    expect(languageFromPath("CMakeLists.txt")).toBe("cmake");
    expect(languageFromPath("Gemfile")).toBe("ruby");
    expect(languageFromPath("Jenkinsfile")).toBe("groovy");
    expect(languageFromPath("BUILD.bazel")).toBe("starlark");
    expect(languageFromPath(".bashrc")).toBe("shell");
    expect(languageFromPath("LICENSE")).toBeUndefined();
    expect(languageFromPath(".env")).toBeUndefined();
  });

  it("by shebang, through env and its flags, ignoring version suffixes", () => {
    expect(languageFromShebang("#!/usr/bin/env node")).toBe("javascript");
    expect(languageFromShebang("#!/usr/bin/env -S deno run --allow-net")).toBe("typescript");
    expect(languageFromShebang("#!/usr/bin/env -S NODE_OPTIONS=x tsx")).toBe("typescript");
    expect(languageFromShebang("#!/usr/bin/python3.12")).toBe("python");
    expect(languageFromShebang("#! /bin/bash -e")).toBe("shell");
    expect(languageFromShebang("#!/bin/sh\r")).toBe("shell");
    expect(languageFromShebang("#!/usr/bin/env ruby")).toBe("ruby");
    expect(languageFromShebang("#!/usr/bin/perl -w")).toBe("perl");
    expect(languageFromShebang("#!/usr/bin/env unknown-thing")).toBeUndefined();
    expect(languageFromShebang("// not a shebang")).toBeUndefined();
  });

  it("detectLanguage: name first, then shebang, else text", () => {
    expect(detectLanguage("bin/tool", "#!/usr/bin/env python3\nprint(1)\n")).toBe("python");
    expect(detectLanguage("bin/tool", Buffer.from("#!/usr/bin/env node\n"))).toBe("javascript");
    expect(detectLanguage("script.rb", "#!/bin/sh\n")).toBe("ruby");
    expect(detectLanguage("LICENSE", "MIT License\n")).toBe("text");
    expect(detectLanguage("LICENSE")).toBe("text");
  });

  it("exports the ids the symbol indexer keys on", () => {
    for (const id of ["typescript", "tsx", "javascript", "python", "go", "rust", "java"])
      expect(LANGUAGE_IDS).toContain(id);
  });

  it("isBinary: a NUL in the first 8 KB", () => {
    expect(isBinary(Buffer.from("plain text\n"))).toBe(false);
    expect(isBinary(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]))).toBe(true);
    expect(isBinary(Buffer.from("h\0e\0l\0l\0o\0", "latin1"))).toBe(true); // UTF-16LE counts as binary
    const lateNul = Buffer.alloc(9000, 0x61);
    lateNul[8500] = 0;
    expect(isBinary(lateNul)).toBe(false);
    expect(isBinary(new Uint8Array())).toBe(false);
  });
});
