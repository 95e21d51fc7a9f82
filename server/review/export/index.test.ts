import { describe, expect, it } from "vitest";
import { modelFinding, readFrom } from "../reviewer/test-support.ts";
import { buildReport } from "../report/build.ts";
import { modelReportSchema } from "../report/schema.ts";
import { isExportFormat, renderExport } from "./index.ts";
import { JSON_EXPORT_FORMAT } from "./json.ts";
import { sampleInput } from "./testing.ts";
import { exportBaseName } from "./text.ts";

describe("renderExport", () => {
  it("gives each format its media type and an ASCII file name", () => {
    const input = sampleInput();
    expect(renderExport("md", input)).toMatchObject({
      contentType: "text/markdown; charset=utf-8",
      filename: "argus-payments-api-prod-0b5f7a52.md",
    });
    expect(renderExport("sarif", input)).toMatchObject({
      contentType: "application/sarif+json; charset=utf-8",
      filename: "argus-payments-api-prod-0b5f7a52.sarif",
    });
    expect(renderExport("json", input).filename).toBe("argus-payments-api-prod-0b5f7a52.json");
    expect(exportBaseName("日本語", "abcdef12-0000")).toBe("argus-review-abcdef12");
  });

  it("JSON carries every finding with its dismissed flag and the review metadata", () => {
    const doc = JSON.parse(renderExport("json", sampleInput({ dismissed: ["fp-aws"] })).body);
    expect(doc.format).toBe(JSON_EXPORT_FORMAT);
    expect(doc.review).toMatchObject({
      uid: "0b5f7a52-4d55-4f0e-9a43-7c1d2e3f4a5b",
      project: { name: "Payments API (prod) ✓" },
      engine: "agent",
      model: "claude-sonnet-4-6",
    });
    expect(doc.report.findings).toHaveLength(3);
    expect(
      doc.report.findings
        .filter((f: { dismissed: boolean }) => f.dismissed)
        .map((f: { fingerprint: string }) => f.fingerprint),
    ).toEqual(["fp-aws"]);
    expect(doc.report.stages.kept).toBe(3);
  });

  it("knows its formats", () => {
    expect(["md", "sarif", "json", "pdf", null].map((f) => isExportFormat(f))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});

describe("a report whose scores Argus computed", () => {
  it("says so in the Markdown, SARIF and JSON exports", async () => {
    const tree = { "src/db.ts": "const q = `SELECT * FROM users WHERE id = ${id}`;\n" };
    const report = await buildReport({
      // The model's REPORT without overall_score or category_scores.
      model: modelReportSchema.parse({
        summary: "One injection.",
        findings: [
          modelFinding({
            title: "SQL injection",
            file: "src/db.ts",
            start_line: 1,
            evidence: "SELECT * FROM users WHERE id = ${id}",
            severity: "critical",
          }),
        ],
      }),
      readFile: readFrom(tree),
      settings: { verify: false },
      engineLabel: "anthropic / claude-sonnet-4-6",
    });
    const note = report.notes.find((n) => n.startsWith("Scores computed by Argus"));
    expect(note).toBeDefined();
    const input = sampleInput({ findings: report.findings, report });

    const md = renderExport("md", input).body;
    expect(md).toContain("| Overall score | **67** / 100 (computed by Argus) |");
    expect(md).toContain("| security | 67 (computed by Argus) |");
    expect(md).toContain(`## Notes\n\n- ${note}`);

    const sarif = JSON.parse(renderExport("sarif", input).body);
    expect(sarif.runs[0].properties).toMatchObject({
      overallScore: 67,
      computedScores: ["overall", "security"],
      notes: [note],
    });

    const json = JSON.parse(renderExport("json", input).body);
    expect(json.report).toMatchObject({ overallScore: 67, computedScores: ["overall", "security"], notes: [note] });
  });

  it("and the model's own scores are not marked", () => {
    const md = renderExport("md", sampleInput()).body;
    expect(md).toContain("| Overall score | **41** / 100 |");
    expect(md).not.toContain("computed by Argus");
    expect(JSON.parse(renderExport("sarif", sampleInput()).body).runs[0].properties.computedScores).toBeUndefined();
  });
});
