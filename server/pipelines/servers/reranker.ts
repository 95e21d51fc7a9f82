/** servers/reranker (spec §5.5) — declared only; calls fail with "not implemented in Argus yet". */
import { defineServer } from "./define.ts";

export const reranker = defineServer({
  name: "reranker",
  defaults: {
    model_name_or_path: "openbmb/MiniCPM-Reranker-Light",
    backend: "sentence_transformers",
    backend_configs: {
      infinity: {
        bettertransformer: false,
        pooling_method: "auto",
        device: "cuda",
        model_warmup: false,
        trust_remote_code: true,
      },
      sentence_transformers: { device: "cuda", trust_remote_code: true },
      openai: { model_name: "text-embedding-3-small", base_url: "https://api.openai.com/v1", api_key: "" },
    },
    gpu_ids: 0,
    top_k: 5,
    batch_size: 16,
    query_instruction: "",
  },
  tools: {
    reranker_init: { params: ["model_name_or_path", "backend_configs", "batch_size", "gpu_ids", "backend"] },
    reranker_rerank: {
      params: ["query_list", "passages_list", "top_k", "query_instruction"],
      output: "q_ls,ret_psg,top_k,query_instruction->rerank_psg",
    },
  },
});
