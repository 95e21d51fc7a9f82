/**
 * servers/generation (spec §5.3) — declared only (signatures + default parameters); calls fail with
 * "not implemented in Argus yet" until the implementation lands. In demo mode the engine passes
 * `ctx.demo` and `ctx.onToken`, so a streaming `generate` plugs in here without engine changes.
 */
import { defineServer } from "./define.ts";

export const generation = defineServer({
  name: "generation",
  defaults: {
    backend: "vllm",
    backend_configs: {
      vllm: {
        model_name_or_path: "openbmb/MiniCPM4-8B",
        gpu_ids: "2,3",
        gpu_memory_utilization: 0.9,
        dtype: "auto",
        trust_remote_code: true,
      },
      openai: {
        model_name: "MiniCPM4-8B",
        base_url: "http://localhost:8000/v1",
        api_key: "",
        concurrency: 8,
        retries: 3,
        base_delay: 1.0,
      },
      hf: { model_name_or_path: "openbmb/MiniCPM4-8B", gpu_ids: "2,3", trust_remote_code: true, batch_size: 8 },
    },
    sampling_params: { temperature: 0.7, top_p: 0.8, max_tokens: 2048 },
    extra_params: { chat_template_kwargs: { enable_thinking: false } },
    system_prompt: "",
    image_tag: null,
  },
  tools: {
    generation_init: { params: ["backend_configs", "sampling_params", "extra_params", "backend"] },
    generate: { params: ["prompt_ls", "system_prompt"], output: "prompt_ls,system_prompt->ans_ls" },
    multimodal_generate: {
      params: ["multimodal_path", "prompt_ls", "system_prompt", "image_tag"],
      output: "multimodal_path,prompt_ls,system_prompt,image_tag->ans_ls",
    },
    multiturn_generate: { params: ["messages", "system_prompt"], output: "messages,system_prompt->ans_ls" },
    // Called with {} after every run (UltraRAG's cleanup of tools ending in `vllm_shutdown`); nothing to free yet.
    vllm_shutdown: { params: [], output: "->None", run: () => ({}) },
  },
});
