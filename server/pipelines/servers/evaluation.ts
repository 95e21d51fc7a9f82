/**
 * servers/evaluation (spec §5.7): `evaluate` scores predictions against golden answers with the QA
 * metrics (qa-metrics.ts), `evaluate_trec` scores a TREC run against qrels (trec-metrics.ts),
 * `evaluate_trec_pvalue` compares two runs with a paired permutation test. Each writes its result to
 * `<dir>/<stem>_<YYYYMMDD_HHMMSS>.json` (indent 4) next to `save_path`, as upstream, and returns it.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { CallContext } from "./contract.ts";
import { defineServer, describe, listArg, ToolError, type ToolArgs } from "./define.ts";
import { PythonRandom } from "./python-random.ts";
import { runFiles } from "./run-files.ts";
import { QA_METRICS } from "./qa-metrics.ts";
import { means, measureNames, parseQrels, parseRun, permutationPValue, perQuery } from "./trec-metrics.ts";
import { timestamp } from "../engine/memory-file.ts";
import { isUnset, messageText } from "../engine/values.ts";

const MAX_TREC_BYTES = 512 * 1024 * 1024;

/** `<dir>/<stem>_<ts>.json`, never overwriting an earlier result. */
function saveResult(ctx: CallContext, savePath: unknown, result: unknown, tool: string): void {
  if (typeof savePath !== "string" || savePath.trim() === "")
    throw new ToolError(`evaluation.${tool}: save_path must be a file path such as output/evaluate_results.json`);
  const file = runFiles(ctx).write(savePath, "save_path", `evaluation.${tool}`);
  const ext = path.extname(file) || ".json";
  const base = path.join(path.dirname(file), `${path.basename(file, path.extname(file))}_${timestamp(new Date())}`);
  mkdirSync(path.dirname(file), { recursive: true });
  let out = `${base}${ext}`;
  for (let n = 2; existsSync(out); n++) out = `${base}_${n}${ext}`;
  writeFileSync(out, JSON.stringify(result, null, 4), { flag: "wx" });
}

/** Own keys only: a metric named `constructor` is unknown, not Object's constructor. */
const qaMetric = (name: string) => (Object.hasOwn(QA_METRICS, name) ? QA_METRICS[name] : undefined);

const predictionText = (v: unknown) => (isUnset(v) ? "" : (messageText(v) ?? (typeof v === "string" ? v : String(v))));

function evaluate(args: ToolArgs, ctx: CallContext): Record<string, unknown> {
  const preds = listArg(args, "pred_ls", "evaluation.evaluate");
  const golds = listArg(args, "gt_ls", "evaluation.evaluate");
  const metrics = args.metrics;
  if (!Array.isArray(metrics) || metrics.some((m) => typeof m !== "string"))
    throw new ToolError(`evaluation.evaluate: metrics must be a list of names (${Object.keys(QA_METRICS).join(", ")})`);
  // zip(gt_ls, pred_ls): pairs up to the shorter list (quirk Q16, kept).
  const n = Math.min(preds.length, golds.length);
  const res: Record<string, unknown> = {};
  const names = metrics.map((m) => m.toLowerCase());
  for (const m of names) res[m] = [];
  for (let i = 0; i < n; i++) {
    const g = golds[i];
    // A golden answer given as one string counts as one answer (upstream would iterate its characters).
    const gt = Array.isArray(g) ? g : g === null || g === undefined || isUnset(g) ? [] : [g];
    for (const m of names) {
      const metric = qaMetric(m);
      if (metric) (res[m] as number[]).push(metric(predictionText(preds[i]), gt));
    }
  }
  for (const m of names) {
    const list = res[m] as number[];
    res[`avg_${m}`] = list.length ? list.reduce((s, x) => s + x, 0) / list.length : 0.0;
  }
  const unknown = names.filter((m) => !qaMetric(m));
  if (unknown.length)
    ctx.notice?.(
      `unknown metric(s) ${unknown.join(", ")} scored nothing; known: ${Object.keys(QA_METRICS).join(", ")}`,
    );
  saveResult(ctx, args.save_path, res, "evaluate");
  return { eval_res: res };
}

function readTrec(ctx: CallContext, p: unknown, what: string, tool: string): string {
  if (typeof p !== "string" || p === "") throw new ToolError(`evaluation.${tool}: ${what} must be a file path`);
  const file = runFiles(ctx).read(p, what, `evaluation.${tool}`);
  const info = statSync(file);
  if (!info?.isFile()) throw new ToolError(`evaluation.${tool}: ${what} '${p}' does not exist`);
  if (info.size > MAX_TREC_BYTES) throw new ToolError(`evaluation.${tool}: ${what} '${p}' is over 512 MB`);
  return readFileSync(file, "utf8");
}

function ksOf(v: unknown, tool: string): number[] {
  if (!Array.isArray(v) || v.length === 0 || v.some((k) => !Number.isInteger(k) || (k as number) < 1))
    throw new ToolError(`evaluation.${tool}: ks must be a list of cut-offs such as [1, 5, 10], got ${describe(v)}`);
  return v as number[];
}

function metricList(v: unknown, tool: string): string[] {
  if (!Array.isArray(v) || v.some((m) => typeof m !== "string"))
    throw new ToolError(`evaluation.${tool}: metrics must be a list such as [mrr, map, ndcg, precision, recall]`);
  return v as string[];
}

export const evaluation = defineServer({
  name: "evaluation",
  defaults: {
    save_path: "output/evaluate_results.json",
    metrics: ["acc", "f1", "em", "coverem", "stringem", "rouge-1", "rouge-2", "rouge-l"],
    qrels_path: "data/qrels.txt",
    run_path: "data/run_a.txt",
    ks: [1, 5, 10, 20, 50, 100],
    ir_metrics: ["mrr", "map", "recall", "ndcg", "precision"],
    run_new_path: "data/run_a.txt",
    run_old_path: "data/run_b.txt",
    n_resamples: 10000,
  },
  tools: {
    evaluate: {
      params: ["pred_ls", "gt_ls", "metrics", "save_path"],
      output: "pred_ls,gt_ls,metrics,save_path->eval_res",
      run: evaluate,
    },
    evaluate_trec: {
      params: ["run_path", "qrels_path", "metrics", "ks", "save_path"],
      output: "run_path,qrels_path,ir_metrics,ks,save_path->eval_res",
      run(args, ctx) {
        const tool = "evaluate_trec";
        const names = measureNames(metricList(args.metrics, tool), ksOf(args.ks, tool));
        const qrels = parseQrels(readTrec(ctx, args.qrels_path, "qrels_path", tool), String(args.qrels_path));
        const run = parseRun(readTrec(ctx, args.run_path, "run_path", tool), String(args.run_path));
        const scores = perQuery(run, qrels, names);
        if (scores.size === 0)
          throw new ToolError(`evaluation.${tool}: no query of the run has judgements in the qrels file`);
        const res = means(scores, names);
        saveResult(ctx, args.save_path, res, tool);
        return { eval_res: res };
      },
    },
    evaluate_trec_pvalue: {
      params: ["run_new_path", "run_old_path", "qrels_path", "metrics", "ks", "n_resamples", "save_path"],
      output: "run_new_path,run_old_path,qrels_path,ir_metrics,ks,n_resamples,save_path->eval_res",
      run(args, ctx) {
        const tool = "evaluate_trec_pvalue";
        const names = measureNames(metricList(args.metrics, tool), ksOf(args.ks, tool));
        const resamples = args.n_resamples;
        if (!Number.isInteger(resamples) || (resamples as number) < 1 || (resamples as number) > 1_000_000)
          throw new ToolError(`evaluation.${tool}: n_resamples must be a whole number from 1 to 1,000,000`);
        const qrels = parseQrels(readTrec(ctx, args.qrels_path, "qrels_path", tool), String(args.qrels_path));
        const a = perQuery(parseRun(readTrec(ctx, args.run_new_path, "run_new_path", tool), "run_new"), qrels, names);
        const b = perQuery(parseRun(readTrec(ctx, args.run_old_path, "run_old_path", tool), "run_old"), qrels, names);
        const common = [...a.keys()].filter((q) => b.has(q)).sort();
        if (!common.length) throw new ToolError(`evaluation.${tool}: the two runs share no judged query`);
        const random = new PythonRandom(42); // a fixed seed: the same files give the same p-value
        const res: Record<string, unknown> = {};
        for (const m of names) {
          const A = common.map((q) => a.get(q)![m]!);
          const B = common.map((q) => b.get(q)![m]!);
          const mean = (x: number[]) => x.reduce((s, v) => s + v, 0) / x.length;
          const p = permutationPValue(
            A.map((x, i) => x - B[i]!),
            resamples as number,
            () => random.random(),
          );
          res[m] = { A_mean: mean(A), B_mean: mean(B), diff: mean(A) - mean(B), p_value: p, significant: p < 0.05 };
        }
        saveResult(ctx, args.save_path, res, tool);
        return { eval_res: res };
      },
    },
  },
});
