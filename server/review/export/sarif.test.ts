import { createRequire } from "node:module";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { FINGERPRINT_KEY, relativeUri, sarifLevel, toSarif } from "./sarif.ts";
import { sampleFinding, sampleInput, sampleTaintFinding } from "./testing.ts";

// The official SARIF 2.1.0 schema (OASIS final, "2.1.0-rtm.5", a draft-04 JSON schema) as Microsoft
// ships it in @microsoft/jest-sarif. Validated with Ajv's draft-04 build and format checks.
const require = createRequire(import.meta.url);
const schema = require("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json") as Record<string, unknown>;
// unicodeRegExp off: the schema's `language` pattern has a stray "]" that only non-unicode regexps accept.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

function expectValid(log: unknown) {
  const ok = validate(log);
  expect(ok ? [] : validate.errors?.map((e) => `${e.instancePath} ${e.message}`)).toEqual([]);
}

describe("SARIF export", () => {
  it("is valid SARIF 2.1.0 for a report with static and agent findings, odd paths and a suppression", () => {
    const log = toSarif(sampleInput({ dismissed: ["fp-html"] }));
    expectValid(log);
    expect(log.version).toBe("2.1.0");
  });

  it("is valid for an empty report and for a review that failed", () => {
    expectValid(toSarif(sampleInput({ findings: [] })));
    expectValid(
      toSarif(
        sampleInput({
          review: { status: "failed", statusReason: "Interrupted by a server restart.", finishedAt: null },
        }),
      ),
    );
  });

  it("the validator really rejects broken logs (the test can fail)", () => {
    const log = toSarif(sampleInput()) as unknown as {
      runs: { results: { level: string; locations: { physicalLocation: { region: { startLine: number } } }[] }[] }[];
    };
    log.runs[0]!.results[0]!.level = "fatal";
    expect(validate(log)).toBe(false);
    const log2 = toSarif(sampleInput()) as unknown as {
      runs: { results: { locations: { physicalLocation: { region: { startLine: number } } }[] }[] }[];
    };
    log2.runs[0]!.results[0]!.locations[0]!.physicalLocation.region.startLine = 0;
    expect(validate(log2)).toBe(false);
  });

  it("names the tool Argus with one rule per static rule id or agent category, referenced by index", () => {
    const log = toSarif(sampleInput());
    const run = log.runs[0]!;
    expect(run.tool.driver.name).toBe("Argus");
    const ids = run.tool.driver.rules!.map((r) => r.id);
    expect(ids).toEqual(["argus/maintainability", "argus/security", "secrets/aws-access-key"]);
    for (const r of run.results!) expect(run.tool.driver.rules![r.ruleIndex!]!.id).toBe(r.ruleId);
    const aws = run.tool.driver.rules!.find((r) => r.id === "secrets/aws-access-key")!;
    expect(aws.properties?.["security-severity"]).toBe("9.5");
    expect(aws.defaultConfiguration?.level).toBe("error");
  });

  it("maps severity to level, keeps lines, fingerprint, confidence and verification", () => {
    expect(["critical", "high", "medium", "low", "info"].map((s) => sarifLevel(s as never))).toEqual([
      "error",
      "error",
      "warning",
      "note",
      "note",
    ]);
    const run = toSarif(sampleInput()).runs[0]!;
    const sql = run.results!.find((r) => r.partialFingerprints?.[FINGERPRINT_KEY] === "fp-sql")!;
    expect(sql.level).toBe("error");
    expect(sql.locations![0]!.physicalLocation!.region).toMatchObject({ startLine: 12, endLine: 13 });
    expect(sql.locations![0]!.physicalLocation!.artifactLocation).toEqual({
      uri: "src/db/users.ts",
      uriBaseId: "SRCROOT",
    });
    expect(sql.properties).toMatchObject({
      confidence: 0.9,
      verification: "confirmed",
      severity: "high",
      category: "security",
    });
    expect(sql.message.text).toContain("The id from the query string is pasted into the SQL text.");
  });

  it("encodes paths as relative URIs and marks false positives as accepted suppressions", () => {
    expect(relativeUri("config/my settings#1.py")).toBe("config/my%20settings%231.py");
    expect(relativeUri("./a\\b.ts")).toBe("a/b.ts");
    const run = toSarif(sampleInput({ dismissed: ["fp-aws"] })).runs[0]!;
    const aws = run.results!.find((r) => r.ruleId === "secrets/aws-access-key")!;
    expect(aws.suppressions).toEqual([
      { kind: "external", status: "accepted", justification: "Marked as a false positive in Argus." },
    ]);
    expect(run.results!.filter((r) => r.suppressions).length).toBe(1);
  });

  it("an agent finding with a ruleId still files under its category; a static one without keeps the category too", () => {
    const run = toSarif(
      sampleInput({
        findings: [
          sampleFinding({ ruleId: "made-up" }),
          sampleFinding({ fingerprint: "s", source: "static", ruleId: undefined, category: "correctness" }),
        ],
      }),
    ).runs[0]!;
    expect(run.results!.map((r) => r.ruleId)).toEqual(["argus/security", "argus/correctness"]);
  });

  it("gives a taint finding its data flow as codeFlows: one thread, source → steps → sink in order", () => {
    const log = toSarif(sampleInput({ findings: [sampleTaintFinding(), sampleFinding()] }));
    expectValid(log);
    const [flow, plain] = log.runs[0]!.results!;
    expect(plain!.codeFlows).toBeUndefined();
    expect(flow!.codeFlows).toHaveLength(1);
    const thread = flow!.codeFlows![0]!.threadFlows;
    expect(thread).toHaveLength(1);
    const steps = thread[0]!.locations.map((l) => ({
      at: `${l.location!.physicalLocation!.artifactLocation!.uri}:${l.location!.physicalLocation!.region!.startLine}`,
      base: l.location!.physicalLocation!.artifactLocation!.uriBaseId,
      text: l.location!.message!.text,
      order: l.executionOrder,
    }));
    expect(steps).toEqual([
      { at: "src/routes/users.ts:7", base: "SRCROOT", text: "source: req.query.id", order: 1 },
      { at: "src/routes/users.ts:7", base: "SRCROOT", text: "id = …", order: 2 },
      { at: "src/routes/users.ts:8", base: "SRCROOT", text: "findUser(id)", order: 3 },
      { at: "src/db/users.ts:4", base: "SRCROOT", text: "sink: db.query()", order: 4 },
    ]);
    expect(flow!.codeFlows![0]!.message!.text).toBe("Untrusted data from req.query.id reaches db.query()");
  });

  it("maps static rules to CWE: the result's taxa in the run's CWE taxonomy, properties.cwe, the rule's tags", () => {
    const log = toSarif(sampleInput({ findings: [sampleTaintFinding(), sampleFinding()] }));
    expectValid(log);
    const run = log.runs[0]!;
    const [sql, agent] = run.results!;
    expect(sql!.taxa).toEqual([{ id: "89", toolComponent: { name: "CWE" } }]);
    expect(sql!.properties?.cwe).toEqual(["CWE-89"]);
    expect(agent!.taxa).toBeUndefined();
    expect(run.taxonomies).toMatchObject([{ name: "CWE", organization: "MITRE", taxa: [{ id: "89" }] }]);
    const rule = run.tool.driver.rules!.find((r) => r.id === "injection/sql")!;
    expect(rule.properties?.tags).toContain("external/cwe/cwe-89");
    const secrets = toSarif(sampleInput()).runs[0]!;
    expect(secrets.results!.find((r) => r.ruleId === "secrets/aws-access-key")!.properties?.cwe).toEqual(["CWE-798"]);
  });
});
