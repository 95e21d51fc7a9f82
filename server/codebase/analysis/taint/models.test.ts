/**
 * The shared model tables: both interpreters' call knowledge is one kind of table, read in order by
 * `applyModels`, and the JS and Python tables say what each model stands for.
 */
import { describe, expect, it } from "vitest";
import { parse } from "../../treesitter.ts";
import { makeContext } from "../rules/index.ts";
import { runTaint } from "./index.ts";
import { JS_CALL_MODELS } from "./js/calls.ts";
import { PY_CALL_MODELS } from "./py/calls.ts";
import { applyModels, sinkModel, type CallModel, type ModelSite } from "./models.ts";
import type { Analyzer } from "./analyzer.ts";
import { constant, EMPTY, sourceVal } from "./values.ts";

async function findings(path: string, language: "javascript" | "python", source: string) {
  const { tree } = await parse(language, source);
  try {
    return runTaint(makeContext(path, language, language, source, tree)).findings.map((f) => f.ruleId);
  } finally {
    tree?.delete();
  }
}

const site = (callee: string, args = [EMPTY]): ModelSite => ({
  node: { startPosition: { row: 0 }, endPosition: { row: 0 }, text: `${callee}()` } as never,
  callee,
  method: callee.split(".").at(-1)!,
  args,
  argNodes: [],
});

describe("applyModels", () => {
  it("asks models in order: the first that applies and answers wins; a sink that says 'next' lets the next one look", () => {
    const sinks: string[] = [];
    const a = { sink: (w: string) => (sinks.push(w), true) } as unknown as Analyzer;
    const table: CallModel<Analyzer, ModelSite>[] = [
      sinkModel({ callee: /^db\.raw$/, weakness: "sql", result: "next" }),
      { what: "never for db.raw", callee: /^other$/, then: () => ({ result: constant("other") }) },
      { what: "db.*", callee: /^db\./, then: () => ({ result: constant("db") }) },
      { what: "unreached", callee: /^db\./, then: () => ({ result: constant("second") }) },
    ];
    expect(applyModels(table, a, site("db.raw"))?.result?.c).toBe("db");
    expect(sinks).toEqual(["sql"]);
    expect(applyModels(table, a, site("fs.read"))).toBeUndefined();
  });

  it("matches a receiver's kind; '' means a plain value with no kind", () => {
    const a = {} as Analyzer;
    const table: CallModel<Analyzer, ModelSite>[] = [
      { what: "plain", recv: "", then: () => ({ result: constant("plain") }) },
      { what: "req", recv: "req", then: () => ({ result: constant("req") }) },
    ];
    const withRecv = (kind?: string) => ({
      ...site("x.get"),
      recv: { ...sourceVal("request", "r", { line: 1, what: "r" }), kind },
    });
    expect(applyModels(table, a, withRecv())?.result?.c).toBe("plain");
    expect(applyModels(table, a, withRecv("req"))?.result?.c).toBe("req");
    expect(applyModels(table, a, site("get"))).toBeUndefined();
  });

  it("every model in both tables says what it stands for", () => {
    for (const m of [...JS_CALL_MODELS, ...PY_CALL_MODELS]) expect(m.what.length).toBeGreaterThan(3);
    expect(JS_CALL_MODELS.length).toBeGreaterThan(40);
    expect(PY_CALL_MODELS.length).toBeGreaterThan(40);
  });
});

describe("the tables at work (the same sink through both interpreters)", () => {
  it("a command built from request data is reported in JS and Python, an escaped one is not", async () => {
    expect(
      await findings(
        "a.js",
        "javascript",
        'const cp = require("child_process");\napp.get("/x", (req, res) => { cp.exec("ls " + req.query.d); });\n',
      ),
    ).toContain("injection/command");
    expect(
      await findings(
        "b.py",
        "python",
        'import os\nfrom flask import request\n@app.route("/x")\ndef x():\n    os.system("ls " + request.args["d"])\n',
      ),
    ).toContain("injection/command");
    expect(
      await findings(
        "a.py",
        "python",
        'import os, shlex\nfrom flask import request\n@app.route("/x")\ndef x():\n    os.system("ls " + shlex.quote(request.args["d"]))\n',
      ),
    ).not.toContain("injection/command");
  });
});
