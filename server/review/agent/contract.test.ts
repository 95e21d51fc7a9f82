import { describe, expect, it } from "vitest";
import { modelReportSchema } from "../report/schema.ts";
import { extractTagged } from "./contract.ts";

const report = { summary: "ok", overall_score: 80, findings: [] };
const extract = (text: string) => extractTagged(text, "REPORT", modelReportSchema);

describe("extractTagged", () => {
  it("takes the JSON after REPORT: with prose before, a code fence around it and whitespace after", () => {
    const r = extract(`I looked at everything.\n\nREPORT:\n\`\`\`json\n${JSON.stringify(report)}\n\`\`\`\n\n  `);
    expect(r).toEqual({ ok: true, value: { ...report, category_scores: {} } });
  });

  it("uses the last REPORT: when the model drafted one earlier, and ignores a mention without JSON", () => {
    const draft = JSON.stringify({ ...report, summary: "draft" });
    const r = extract(
      `REPORT: ${draft}\nOn reflection, here is the final REPORT: ${JSON.stringify({ ...report, summary: "final" })}\nThat's the REPORT: above.`,
    );
    expect(r.ok && r.value.summary).toBe("final");
  });

  it("is not fooled by braces and the tag inside strings", () => {
    const tricky = { ...report, summary: 'uses "{" and } and REPORT: inside' };
    const r = extract(`REPORT: ${JSON.stringify(tricky)}`);
    expect(r.ok && r.value.summary).toBe(tricky.summary);
  });

  it("coerces numbers sent as strings, as the model schema allows", () => {
    const r = extract(`REPORT: {"summary": "s", "overall_score": "75", "findings": []}`);
    expect(r.ok && r.value.overall_score).toBe(75);
  });

  it("says exactly what is wrong: missing tag, cut-off JSON, bad JSON, schema violations", () => {
    expect(extract("All good, nothing to report.")).toMatchObject({
      ok: false,
      error: expect.stringContaining('No "REPORT:" line'),
    });
    expect(extract(`REPORT: {"summary": "s", "findings": [`)).toMatchObject({
      ok: false,
      error: expect.stringContaining("incomplete"),
    });
    expect(extract(`REPORT: {"summary": 's'}`)).toMatchObject({
      ok: false,
      error: expect.stringContaining("not valid JSON"),
    });
    const bad = extract(
      `REPORT: {"summary": "s", "overall_score": 150, "findings": [{"title": "t", "severity": "urgent"}]}`,
    );
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error).toContain("overall_score:");
      expect(bad.error).toContain("findings.0.severity:");
      expect(bad.error).toContain("findings.0.file:");
    }
  });
});
