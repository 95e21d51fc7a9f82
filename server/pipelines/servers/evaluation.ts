/** servers/evaluation (spec §5.7) — declared only; calls fail with "not implemented in Argus yet". */
import { defineServer } from "./define.ts";

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
    },
    evaluate_trec: {
      params: ["run_path", "qrels_path", "metrics", "ks", "save_path"],
      output: "run_path,qrels_path,ir_metrics,ks,save_path->eval_res",
    },
    evaluate_trec_pvalue: {
      params: ["run_new_path", "run_old_path", "qrels_path", "metrics", "ks", "n_resamples", "save_path"],
      output: "run_new_path,run_old_path,qrels_path,ir_metrics,ks,n_resamples,save_path->eval_res",
    },
  },
});
