/**
 * servers/evaluation against hand-computed values (spec §5.7): every QA metric, the normalisation
 * order, ROUGE with Porter stemming, trec_eval's ranking measures, the permutation test, and the
 * result file next to save_path.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readUltrarag } from "../dsl/test-support.ts";
import { tempDir } from "../engine/test-support.ts";
import { evaluation } from "./evaluation.ts";
import { porterStemToken as porterStem } from "../../retrieval/text/porter.ts";
import { normalizeText, QA_METRICS, rougeTokens } from "./qa-metrics.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const score = (m: string, p: string, gt: string[]) => QA_METRICS[m]!(p, gt);

describe("normalisation (order matters)", () => {
  it("True/False, underscores, case, punctuation to spaces, then articles, then whitespace incl. NBSP", () => {
    expect(normalizeText("True")).toBe("yes");
    expect(normalizeText("False")).toBe("no");
    expect(normalizeText("the-end of_An Era")).toBe("end of era");
    expect(normalizeText("54\u00a0Mbit/s")).toBe("54 mbit s");
    expect(normalizeText("‘Theatre’ `x´")).toBe("theatre x");
    expect(normalizeText("éthe thé the")).toBe("éthe thé");
  });
});

describe("QA metrics per sample", () => {
  it("acc: a golden answer contained in the prediction; 0 for an empty prediction", () => {
    expect(score("acc", "It was December 1972.", ["December 1972"])).toBe(1);
    expect(score("acc", "1972", ["December 1972"])).toBe(0);
    expect(score("acc", "", [""])).toBe(0);
  });
  it("em, coverem (all golden tokens present, any order), stringem (share of golden answers matched)", () => {
    expect(score("em", "The Beatles!", ["beatles"])).toBe(1);
    expect(score("em", "Beatles band", ["beatles"])).toBe(0);
    expect(score("coverem", "scott, bobby", ["Bobby Scott"])).toBe(1);
    expect(score("coverem", "bobby", ["Bobby Scott"])).toBe(0);
    expect(score("stringem", "December 1972", ["14 December 1972 UTC", "December 1972"])).toBe(0.5);
  });
  it("f1: token F1 with multiplicity, best over golden answers", () => {
    // pred: bob russell and bobby scott (5); gold: bobby scott (2) → P 2/5, R 1 → 4/7
    expect(score("f1", "Bob Russell and Bobby Scott", ["Bobby Scott", "Bob Russell"])).toBeCloseTo(4 / 7, 12);
    // "a a b" vs "a b b": overlap min(…)=a:1? no — articles: "a" is removed → "b" vs "b b": P 1, R 1/2
    expect(score("f1", "x x y", ["x y y"])).toBeCloseTo(2 / 3, 12);
    expect(score("f1", "", ["x"])).toBe(0);
  });
  it("rouge-1/2/L: rouge_score's tokens, Porter-stemmed above 3 characters, F-measure", () => {
    expect(rougeTokens(normalizeText("the cats are running quickly"))).toEqual(["cat", "are", "run", "quickli"]);
    expect(rougeTokens(normalizeText("a cat runs quick"))).toEqual(["cat", "run", "quick"]);
    // overlap {cat, run}: P 2/4, R 2/3 → 4/7; no common bigram; LCS cat…run = 2 → 4/7
    expect(score("rouge-1", "the cats are running quickly", ["a cat runs quick"])).toBeCloseTo(4 / 7, 12);
    expect(score("rouge-2", "the cats are running quickly", ["a cat runs quick"])).toBe(0);
    expect(score("rouge-l", "the cats are running quickly", ["a cat runs quick"])).toBeCloseTo(4 / 7, 12);
    // bigrams "new york", "york city" vs "new york": P 1/2, R 1 → 2/3
    expect(score("rouge-2", "new york city", ["new york"])).toBeCloseTo(2 / 3, 12);
  });
  it("Porter's own examples", () => {
    const cases: Record<string, string> = {
      caresses: "caress",
      ponies: "poni",
      agreed: "agre",
      plastered: "plaster",
      motoring: "motor",
      sing: "sing",
      hopping: "hop",
      falling: "fall",
      filing: "file",
      happy: "happi",
      relational: "relat",
      conditional: "condit",
      digitizer: "digit",
      vietnamization: "vietnam",
      hopefulness: "hope",
      sensibiliti: "sensibl",
      formative: "form",
      electrical: "electr",
      allowance: "allow",
      adjustment: "adjust",
      adoption: "adopt",
      effective: "effect",
      probate: "probat",
      cease: "ceas",
      controll: "control",
      generalizations: "gener",
    };
    for (const [w, stem] of Object.entries(cases)) expect([w, porterStem(w)]).toEqual([w, stem]);
  });
});

describe("evaluation.evaluate", () => {
  it("reproduces check P3's numbers on UltraRAG's sample questions and writes <stem>_<ts>.json", async () => {
    const gt_ls = readUltrarag("data/sample_nq_10.jsonl")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { golden_answers: string[] }).golden_answers);
    const pred_ls = [
      "December 1972",
      "Bob Russell and Bobby Scott",
      "One",
      "2018",
      "the South Carolina Gamecocks",
      "During the last Ice Age",
      "Selena Gomez",
      "James I",
      "a normally inaccessible mini-game",
      "No box here: 54 Mbit/s",
    ];
    const { eval_res } = (await evaluation().call(
      "tool",
      "evaluate",
      { pred_ls, gt_ls, metrics: ["acc", "f1", "em", "coverem", "stringem"], save_path: "eval/evaluate_results.json" },
      { cwd: dir },
    )) as { eval_res: Record<string, unknown> };
    expect(Object.keys(eval_res)).toEqual([
      "acc",
      "f1",
      "em",
      "coverem",
      "stringem",
      "avg_acc",
      "avg_f1",
      "avg_em",
      "avg_coverem",
      "avg_stringem",
    ]);
    expect(eval_res).toEqual({
      acc: [1, 1, 1, 0, 1, 1, 0, 1, 1, 1],
      f1: [1.0, 0.5714285714285715, 1.0, 0.0, 0.8, 1.0, 0.0, 1.0, 1.0, 0.6666666666666666],
      em: [1, 0, 1, 0, 0, 1, 0, 1, 1, 0],
      coverem: [1, 1, 1, 0, 1, 1, 0, 1, 1, 1],
      stringem: [0.5, 0, 0.5, 0, 0, 1, 0, 1, 1, 0],
      avg_acc: 0.8,
      avg_f1: 0.7038095238095239,
      avg_em: 0.5,
      avg_coverem: 0.8,
      avg_stringem: 0.4,
    });
    const files = readdirSync(path.join(dir, "eval"));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^evaluate_results_\d{8}_\d{6}\.json$/);
    expect(JSON.parse(readFileSync(path.join(dir, "eval", files[0]!), "utf8"))).toEqual(eval_res);
  });

  it("pairs up to the shorter list, scores unknown metrics as nothing (with a notice), refuses bad input", async () => {
    const notices: string[] = [];
    const { eval_res } = (await evaluation().call(
      "tool",
      "evaluate",
      { pred_ls: ["a", "b", "c"], gt_ls: [["a"], "b"], metrics: ["EM", "constructor"], save_path: "r.json" },
      { cwd: dir, notice: (m) => notices.push(m) },
    )) as { eval_res: Record<string, unknown> };
    expect(eval_res).toEqual({ em: [1, 1], constructor: [], avg_em: 1, avg_constructor: 0 });
    expect(notices[0]).toContain("unknown metric(s) constructor");
    await expect(
      evaluation().call(
        "tool",
        "evaluate",
        { pred_ls: ["a"], gt_ls: [["a"]], metrics: "em", save_path: "r.json" },
        { cwd: dir },
      ),
    ).rejects.toThrow("evaluation.evaluate: metrics must be a list of names");
  });
});

describe("evaluation.evaluate_trec and the permutation test", () => {
  const QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d4 1\nq3 0 d9 1\n";
  const RUN = "q1 Q0 d2 1 3.0 t\nq1 Q0 d1 2 2.0 t\nq1 Q0 d3 3 1.0 t\nq2 Q0 d5 1 2 t\nq2 Q0 d4 2 1 t\nq9 Q0 d1 1 1 t\n";

  it("mrr, map, P@k, recall@k, ndcg@k as trec_eval computes them, averaged over the judged queries", async () => {
    writeFileSync(path.join(dir, "qrels.txt"), QRELS);
    writeFileSync(path.join(dir, "run.txt"), RUN);
    const { eval_res } = (await evaluation().call(
      "tool",
      "evaluate_trec",
      {
        run_path: "run.txt",
        qrels_path: "qrels.txt",
        metrics: ["mrr", "map", "precision", "recall", "ndcg"],
        ks: [1, 2],
        save_path: "out/trec.json",
      },
      { cwd: dir },
    )) as { eval_res: Record<string, number> };
    const l3 = Math.log2(3);
    expect(eval_res.mrr).toBeCloseTo(0.5, 12);
    expect(eval_res.map).toBeCloseTo(((1 / 2 + 2 / 3) / 2 + 1 / 2) / 2, 12);
    expect(eval_res["P@1"]).toBe(0);
    expect(eval_res["P@2"]).toBeCloseTo(0.5, 12);
    expect(eval_res["recall@2"]).toBeCloseTo((0.5 + 1) / 2, 12);
    expect(eval_res["ndcg@2"]).toBeCloseTo((1 / l3 / (2 + 1 / l3) + 1 / l3) / 2, 12);
    expect(readdirSync(path.join(dir, "out"))[0]).toMatch(/^trec_\d{8}_\d{6}\.json$/);
  });

  it("ties in score rank by document id, descending (trec_eval's order)", async () => {
    writeFileSync(path.join(dir, "qrels.txt"), "q 0 b 1\n");
    writeFileSync(path.join(dir, "run.txt"), "q Q0 a 1 1.0 t\nq Q0 b 2 1.0 t\n");
    const { eval_res } = (await evaluation().call(
      "tool",
      "evaluate_trec",
      { run_path: "run.txt", qrels_path: "qrels.txt", metrics: ["mrr"], ks: [1], save_path: "t.json" },
      { cwd: dir },
    )) as { eval_res: Record<string, number> };
    expect(eval_res.mrr).toBe(1);
  });

  it("the paired permutation test: identical runs p = 1; a consistent gain is significant", async () => {
    const qrels = Array.from({ length: 10 }, (_, i) => `q${i} 0 good 1`).join("\n");
    const better = Array.from({ length: 10 }, (_, i) => `q${i} Q0 good 1 2 t\nq${i} Q0 bad 2 1 t`).join("\n");
    const worse = Array.from({ length: 10 }, (_, i) => `q${i} Q0 bad 1 2 t\nq${i} Q0 good 2 1 t`).join("\n");
    writeFileSync(path.join(dir, "qrels.txt"), qrels);
    writeFileSync(path.join(dir, "a.txt"), better);
    writeFileSync(path.join(dir, "b.txt"), worse);
    const call = async (a: string, b: string) =>
      (
        (await evaluation().call(
          "tool",
          "evaluate_trec_pvalue",
          {
            run_new_path: a,
            run_old_path: b,
            qrels_path: "qrels.txt",
            metrics: ["mrr"],
            ks: [1],
            n_resamples: 2000,
            save_path: "p.json",
          },
          { cwd: dir },
        )) as { eval_res: Record<string, Record<string, number | boolean>> }
      ).eval_res.mrr!;
    expect(await call("a.txt", "a.txt")).toMatchObject({ diff: 0, p_value: 1, significant: false });
    const r = await call("a.txt", "b.txt");
    expect(r).toMatchObject({ A_mean: 1, B_mean: 0.5, diff: 0.5, significant: true });
    expect(r.p_value).toBeLessThan(0.01);
  });

  it("names the file and line of a malformed qrels or run file", async () => {
    writeFileSync(path.join(dir, "qrels.txt"), "q1 0 d1\n");
    writeFileSync(path.join(dir, "run.txt"), RUN);
    await expect(
      evaluation().call(
        "tool",
        "evaluate_trec",
        { run_path: "run.txt", qrels_path: "qrels.txt", metrics: ["map"], ks: [1], save_path: "t.json" },
        { cwd: dir },
      ),
    ).rejects.toThrow('qrels.txt:1: a qrels line is "<query> <iteration> <document> <grade>"');
    writeFileSync(path.join(dir, "qrels.txt"), QRELS);
    await expect(
      evaluation().call(
        "tool",
        "evaluate_trec",
        { run_path: "missing.txt", qrels_path: "qrels.txt", metrics: ["map"], ks: [1], save_path: "t.json" },
        { cwd: dir },
      ),
    ).rejects.toThrow('run_path "missing.txt" does not exist');
  });
});
