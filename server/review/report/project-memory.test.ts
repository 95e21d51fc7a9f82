import { describe, expect, it } from "vitest";
import { modelFinding, readFrom } from "../reviewer/test-support.ts";
import { buildReport } from "./build.ts";
import { messageOverlap, type Dismissed, type RememberedFalsePositive } from "./project-memory.ts";
import { type Finding, modelReportSchema } from "./schema.ts";

const tree = {
  "src/db.ts": [
    "import db from './db';",
    "",
    "export function getUser(id) {",
    "  return db.query(`SELECT * FROM users WHERE id = ${id}`);",
    "}",
  ].join("\n"),
  "src/util.ts": [
    "export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));",
    "export function parse(s) { return JSON.parse(s); }",
  ].join("\n"),
};

/** The finding the team will mark false positive. */
const parse = modelFinding({
  title: "Unchecked JSON.parse of request body",
  file: "src/util.ts",
  start_line: 2,
  evidence: "return JSON.parse(s);",
  category: "reliability",
  confidence: 0.8,
});
/** Same category, same file, other code. */
const sleep = modelFinding({
  title: "Timer never cleared",
  file: "src/util.ts",
  start_line: 1,
  evidence: "setTimeout(r, ms)",
  category: "reliability",
  confidence: 0.8,
});
/** Same category, another file, near-identical message (6 of 7 words: 0.86). */
const sameMessage = modelFinding({
  title: "Unchecked JSON.parse of the request body",
  file: "src/db.ts",
  start_line: 3,
  evidence: "export function getUser(id) {",
  category: "reliability",
  confidence: 0.8,
});
/** Same category, another file, a message only partly alike (3 of 7 words). */
const otherMessage = modelFinding({
  title: "Unchecked JSON.parse result",
  file: "src/db.ts",
  start_line: 1,
  evidence: "import db from './db';",
  category: "reliability",
  confidence: 0.8,
});
/** Another category in the same file. */
const security = modelFinding({
  title: "Unchecked JSON.parse of request body",
  file: "src/util.ts",
  start_line: 2,
  evidence: "return JSON.parse(s);",
  category: "security",
  confidence: 0.8,
});

async function review(findings: unknown[], dismissed: Dismissed[] = [], minConfidence = 0) {
  return buildReport({
    model: modelReportSchema.parse({
      summary: "s",
      overall_score: 50,
      category_scores: { reliability: 50, security: 50 },
      findings,
    }),
    readFile: readFrom(tree),
    settings: { verify: false, minConfidence },
    dismissed,
    engineLabel: "test",
  });
}

/** The team marked the first review's "Unchecked JSON.parse" false positive on 1 December. */
async function rememberedParse(): Promise<RememberedFalsePositive> {
  const first = await review([parse]);
  const f: Finding = first.findings[0]!;
  return { ...f, dismissedAt: new Date("2026-12-01T09:30:00Z") };
}

const byTitle = (findings: Finding[], title: string, category = "reliability") =>
  findings.find((f) => f.title === title && f.category === category);

describe("the project's memory of false positives", () => {
  it("suppresses the exact finding and lowers the confidence of similar ones, saying why", async () => {
    const memory = [await rememberedParse()];
    const report = await review([parse, sleep, sameMessage, otherMessage, security], memory);

    expect(report.stages.droppedDismissed).toBe(1);
    expect(report.findings.some((f) => f.title === parse.title && f.category === "reliability")).toBe(false);

    const similarFile = byTitle(report.findings, sleep.title)!;
    expect(similarFile.confidence).toBe(0.4);
    expect(similarFile.explanation).toContain(
      'Confidence lowered from 0.80 to 0.40: similar to a finding the team marked false positive on 2026-12-01 ("Unchecked JSON.parse of request body" in src/util.ts; same rule, same file).',
    );
    const similarMessage = byTitle(report.findings, sameMessage.title)!;
    expect(similarMessage.confidence).toBe(0.4);
    expect(similarMessage.explanation).toContain("same rule, near-identical message");

    // Unrelated: another file and a message only partly alike; another category in the same file.
    for (const f of [
      byTitle(report.findings, otherMessage.title)!,
      byTitle(report.findings, security.title, "security")!,
    ]) {
      expect(f.confidence).toBe(0.8);
      expect(f.explanation).toBe("Explained.");
    }
    expect(report.notes).toContain(
      "2 finding(s) similar to ones the team marked false positive lost confidence (×0.5)",
    );
  });

  it("lets the review's confidence threshold drop the lowered ones", async () => {
    const report = await review([sleep, otherMessage], [await rememberedParse()], 0.5);
    expect(report.findings.map((f) => f.title)).toEqual([otherMessage.title]);
    expect(report.stages).toMatchObject({ droppedBelowConfidence: 1, droppedDismissed: 0, kept: 1 });
    expect(report.notes).toContain(
      "1 finding(s) similar to ones the team marked false positive lost confidence (×0.5); 1 of them fell below the confidence threshold",
    );
  });

  it("remembers a fingerprint alone as before: only that finding is suppressed", async () => {
    const remembered = await rememberedParse();
    const report = await review([parse, sleep], [remembered.fingerprint]);
    expect(report.stages.droppedDismissed).toBe(1);
    expect(report.findings.map((f) => [f.title, f.confidence])).toEqual([[sleep.title, 0.8]]);
    expect(report.notes).toEqual([]);
  });

  it("lowers a finding once, naming the latest judgement, however many it resembles", async () => {
    const older = await rememberedParse();
    const newer = { ...older, fingerprint: "f".repeat(32), dismissedAt: new Date("2026-12-05T00:00:00Z") };
    const report = await review([sleep], [older, newer]);
    expect(report.findings[0]!.confidence).toBe(0.4);
    expect(report.findings[0]!.explanation).toContain("marked false positive on 2026-12-05");
  });
});

describe("near-identical messages", () => {
  it("are a normalized token overlap of at least 0.8, numbers left out", () => {
    expect(
      messageOverlap("Unchecked JSON.parse of request body", "unchecked json parse of the request body"),
    ).toBeCloseTo(6 / 7);
    expect(messageOverlap("Unused variable `x` on line 12", "Unused variable `x` on line 40")).toBe(1);
    expect(messageOverlap("Unchecked JSON.parse result", "Unchecked JSON.parse of request body")).toBeCloseTo(3 / 7);
    expect(messageOverlap("", "")).toBe(0);
  });
});
