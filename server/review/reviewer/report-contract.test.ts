import { describe, expect, it } from "vitest";
import { modelReportSchema, salvageReportSchema } from "../report/schema.ts";
import { extractTagged } from "../../agent/index.ts";

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

describe("the REPORT's scores", () => {
  const finding = {
    title: "t",
    severity: "high",
    confidence: 0.9,
    category: "security",
    file: "a.ts",
    start_line: 1,
    end_line: 1,
    evidence: "x",
    explanation: "e",
  };

  it("may be left out (or null): Argus computes them, so no repair turn is spent on them", () => {
    for (const scores of ["", `"overall_score": null, "category_scores": null,`]) {
      const r = extract(`REPORT: {"summary": "s", ${scores} "findings": []}`);
      expect(r).toEqual({ ok: true, value: { summary: "s", category_scores: {}, findings: [] } });
    }
    // null is "no score", never a 0 by coercion
    const r = extract(
      `REPORT: {"summary": "s", "overall_score": 70, "category_scores": {"security": null}, "findings": []}`,
    );
    expect(r.ok && r.value).toMatchObject({ overall_score: 70, category_scores: {} });
    expect(r.ok && r.value.category_scores.security).toBeUndefined();
  });

  it("that are given but wrong still go back to the model for repair", () => {
    for (const bad of [`"overall_score": 150`, `"overall_score": "high"`, `"category_scores": {"bugs": 50}`]) {
      expect(extract(`REPORT: {"summary": "s", ${bad}, "findings": []}`).ok).toBe(false);
    }
  });

  it("after the repair turns, wrong scores count as left out; wrong findings still do not pass", () => {
    const salvage = (json: string) => extractTagged(`REPORT: ${json}`, "REPORT", salvageReportSchema);
    const kept = salvage(
      JSON.stringify({ summary: "s", overall_score: 150, category_scores: { bugs: 5 }, findings: [finding] }),
    );
    expect(kept).toMatchObject({ ok: true, value: { category_scores: {}, findings: [{ title: "t" }] } });
    expect(kept.ok && kept.value.overall_score).toBeUndefined();
    const someKept = salvage(
      JSON.stringify({ summary: "s", category_scores: { security: 40, style: -3 }, findings: [] }),
    );
    expect(someKept.ok && someKept.value.category_scores).toEqual({ security: 40 });
    expect(
      salvage(JSON.stringify({ summary: "s", overall_score: 150, findings: [{ ...finding, severity: "urgent" }] })).ok,
    ).toBe(false);
  });
});
