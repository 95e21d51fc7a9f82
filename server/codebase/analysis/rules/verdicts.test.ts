import { describe, expect, it } from "vitest";
import { parse } from "../../treesitter.ts";
import type { Finding } from "../types.ts";
import { makeContext } from "./context.ts";
import { FLOW_WORDS, report, runSinkRules, type SinkRule } from "./engine.ts";
import { FlowAnalysis } from "./flow.ts";
import { flowRule } from "./flow-rule.ts";
import { secretUseRule } from "./secret-use.ts";
import { codeVerdict, deserializationVerdict, INPUT_REDIRECTS, reportCommand, reportFlow } from "./verdicts.ts";

/** Runs one rule over a Python snippet (a real parse and flow analysis), findings in line order. */
async function run(rule: SinkRule, source: string): Promise<Finding[]> {
  const { tree } = await parse("python", source);
  try {
    const ctx = makeContext("app.py", "python", "python", source, tree);
    return await runSinkRules(ctx, new FlowAnalysis(ctx), [rule]);
  } finally {
    tree?.delete();
  }
}

const verdicts = (findings: Finding[]) => findings.map((f) => [f.startLine, f.severity, f.confidence, f.message]);

const SNIPPET = `def handler(request, name):
    shell(request.args["cmd"])
    cmd = request.args["cmd"]
    shell(cmd.strip())
    shell("ls " + name)
    shell(name)
    shell("ls -l")
`;

describe("codeVerdict", () => {
  const rule = (assembledCounts: boolean): SinkRule => ({
    id: "test/code",
    anchor: /\b(shell)\s*\(/dg,
    async check(hit) {
      const { flow, verdict } = await codeVerdict(hit, hit.call!.args[0]!, 0.8, assembledCounts);
      return report(hit, "test/code", verdict, FLOW_WORDS[flow]);
    },
  });

  it("is critical on request input, high on derived input, medium on a string assembled at run time", async () => {
    expect(verdicts(await run(rule(true), SNIPPET))).toEqual([
      [2, "critical", 0.9, FLOW_WORDS.source],
      [4, "high", 0.8, FLOW_WORDS.tainted],
      [5, "medium", 0.5, FLOW_WORDS.dynamic],
    ]);
  });

  it("ignores assembled strings where they are normal", async () => {
    expect(verdicts(await run(rule(false), SNIPPET)).map(([line]) => line)).toEqual([2, 4]);
  });
});

describe("reportFlow", () => {
  const rule: SinkRule = {
    id: "test/redirect",
    anchor: /\b(shell)\s*\(/dg,
    check: (hit) => reportFlow(hit, "test/redirect", hit.call!.args[0]!, INPUT_REDIRECTS, (from) => `goes to ${from}`),
  };

  it("reports with the table's verdict for the flow and names the flow in the message", async () => {
    expect(verdicts(await run(rule, SNIPPET))).toEqual([
      [2, "medium", 0.85, `goes to ${FLOW_WORDS.source}`],
      [4, "medium", 0.8, `goes to ${FLOW_WORDS.tainted}`],
    ]);
  });
});

describe("flowRule", () => {
  const rule = flowRule({
    id: "test/path",
    anchor: /\b(shell)\s*\(/dg,
    // Only one-argument calls are this sink: the rule's argument picker decides.
    argument: (call) => (call.args.length === 1 ? call.args[0] : undefined),
    table: INPUT_REDIRECTS,
    message: (call, from) => `${call.callee} from ${from}`,
  });

  it("judges the argument the picker chose and skips calls it declines", async () => {
    const source = `def handler(request):
    shell(request.args["a"])
    shell(request.args["a"], 2)
`;
    expect(verdicts(await run(rule, source))).toEqual([[2, "medium", 0.85, `shell from ${FLOW_WORDS.source}`]]);
  });
});

describe("reportCommand", () => {
  const rule: SinkRule = {
    id: "injection/command",
    anchor: /\b(shell|direct)\s*\(/dg,
    check: (hit) =>
      reportCommand(hit, hit.call!, {
        shellScript: hit.call!.name === "shell" ? hit.call!.args[0]! : null,
        program: hit.call!.args[0],
        taintedConfidence: 0.85,
        noun: "script",
      }),
  };

  it("judges a shell's script as code and a direct run by its program alone", async () => {
    const source = `def handler(request, name):
    shell("ls " + name)
    direct("ls " + name)
    direct(request.args["prog"])
`;
    expect(verdicts(await run(rule, source))).toEqual([
      [2, "medium", 0.5, `shell() runs a shell script built from ${FLOW_WORDS.dynamic}`],
      [4, "high", 0.8, `direct() runs a program chosen by ${FLOW_WORDS.source}`],
    ]);
  });
});

describe("deserializationVerdict", () => {
  it("is high even for values of unknown origin; constants only when asked", () => {
    expect(deserializationVerdict("dynamic", 0.7)).toEqual(["high", 0.7]);
    expect(deserializationVerdict("tainted", 0.7)).toEqual(["critical", 0.85]);
    expect(deserializationVerdict("constant", 0.7)).toEqual(["medium", 0.5]);
    expect(deserializationVerdict("constant", 0.7, false)).toBeNull();
  });
});

describe("secretUseRule", () => {
  const rule = secretUseRule({
    id: "test/weak-hash",
    anchor: /\b(md5)\s*\(/dg,
    verdict: ["high", 0.8],
    message: (hit, call) => `${call.callee} via ${hit.match[1]}`,
  });

  it("reports a weak call only where it guards a secret, with the rule's verdict", async () => {
    const source = `def checksum(data):
    return md5(data)

def store(password):
    hashed = md5(password)
    return hashed
`;
    expect(verdicts(await run(rule, source))).toEqual([[5, "high", 0.8, "md5 via md5"]]);
  });

  it("keeps the rule's file-level precondition", async () => {
    const guarded = secretUseRule({
      id: "test/weak-hash",
      anchor: /\b(md5)\s*\(/dg,
      when: (ctx) => ctx.source.includes("import hashlib"),
      verdict: ["high", 0.8],
      message: () => "weak",
    });
    expect(await run(guarded, "def store(password):\n    return md5(password)\n")).toEqual([]);
  });
});
