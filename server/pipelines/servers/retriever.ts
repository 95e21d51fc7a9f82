/**
 * servers/retriever (spec §5.2) — declared only: signatures and default parameters, so pipelines
 * using it validate and build. Calling a tool fails with "not implemented in Argus yet" until its
 * implementation lands (a later issue adds `run` functions here; the engine needs no change).
 */
import { defineServer } from "./define.ts";

const SEARCH = ["query_list", "top_k", "query_instruction", "collection_name"];
const WEB = ["query_list", "top_k", "retrieve_thread_num", "websearch_backend", "websearch_backend_configs"];
const websearchBackend = { api_key: "", retries: 3, base_delay: 1.0, search_kwargs: {} };

export const retriever = defineServer({
  name: "retriever",
  defaults: {
    model_name_or_path: "openbmb/MiniCPM-Embedding-Light",
    corpus_path: "data/corpus_example.jsonl",
    embedding_path: "embedding/embedding.npy",
    collection_name: "wiki",
    backend: "sentence_transformers",
    backend_configs: {
      infinity: { bettertransformer: false, pooling_method: "auto", model_warmup: false, trust_remote_code: true },
      sentence_transformers: {
        trust_remote_code: true,
        sentence_transformers_encode: {
          normalize_embeddings: false,
          encode_chunk_size: 256,
          q_prompt_name: "query",
          psg_prompt_name: "document",
          psg_task: null,
          q_task: null,
        },
      },
      openai: {
        model_name: "text-embedding-3-small",
        base_url: "https://api.openai.com/v1",
        api_key: "",
        concurrency: 8,
      },
      bm25: { lang: "en", tokenizer: "auto", save_path: "index/bm25" },
    },
    index_backend: "faiss",
    index_backend_configs: {
      faiss: { index_use_gpu: true, index_chunk_size: 10000, index_path: "index/index.index" },
      milvus: {
        uri: "index/milvus_demo.db",
        token: null,
        id_field_name: "id",
        vector_field_name: "vector",
        text_field_name: "contents",
        id_max_length: 64,
        text_max_length: 60000,
        metric_type: "IP",
        index_params: { index_type: "AUTOINDEX", metric_type: "IP" },
        search_params: { metric_type: "IP", params: {} },
        index_chunk_size: 1000,
      },
    },
    websearch_backend: "tavily",
    websearch_backend_configs: {
      exa: websearchBackend,
      tavily: websearchBackend,
      zhipuai: {
        ...websearchBackend,
        base_url: "https://open.bigmodel.cn/api/paas/v4/web_search",
        search_engine: "search_std",
        search_intent: false,
        search_recency_filter: "noLimit",
        content_size: "medium",
      },
    },
    batch_size: 16,
    top_k: 5,
    gpu_ids: "1",
    query_instruction: "",
    is_multimodal: false,
    overwrite: false,
    retrieve_thread_num: 1,
    retriever_url: "http://127.0.0.1:64501",
    is_demo: false,
  },
  tools: {
    retriever_init: {
      params: [
        "model_name_or_path",
        "backend_configs",
        "batch_size",
        "corpus_path",
        "gpu_ids",
        "is_multimodal",
        "backend",
        "index_backend",
        "index_backend_configs",
        "is_demo",
        "collection_name",
      ],
    },
    retriever_embed: { params: ["embedding_path", "overwrite", "is_multimodal"] },
    retriever_index: { params: ["embedding_path", "overwrite", "collection_name", "corpus_path"] },
    retriever_search: { params: SEARCH, output: "q_ls,top_k,query_instruction,collection_name->ret_psg" },
    retriever_batch_search: {
      params: ["batch_query_list", "top_k", "query_instruction", "collection_name"],
      output: "batch_query_list,top_k,query_instruction,collection_name->ret_psg_ls",
    },
    retriever_project_memory_search: {
      params: ["query_list", "top_k", "query_instruction", "current_user_id"],
      output: "q_ls,top_k,query_instruction,current_user_id->project_memory_content",
    },
    bm25_index: { params: ["overwrite"] },
    bm25_search: { params: ["query_list", "top_k"], output: "q_ls,top_k->ret_psg" },
    retriever_deploy_search: {
      params: ["retriever_url", "query_list", "top_k", "query_instruction"],
      output: "retriever_url,q_ls,top_k,query_instruction->ret_psg",
    },
    retriever_websearch: {
      params: WEB,
      output: "q_ls,top_k,retrieve_thread_num,websearch_backend,websearch_backend_configs->ret_psg",
    },
    retriever_batch_websearch: {
      params: ["batch_query_list", ...WEB.slice(1)],
      output: "batch_query_list,top_k,retrieve_thread_num,websearch_backend,websearch_backend_configs->ret_psg_ls",
    },
  },
});
