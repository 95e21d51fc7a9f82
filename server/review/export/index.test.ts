import { describe, expect, it } from "vitest";
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
