/**
 * servers/memory (spec §5.10) — declared only; calls fail with "not implemented in Argus yet".
 * `save_memory` is never run as a step: the engine skips it and auto-saves the turn after the run.
 */
import { defineServer } from "./define.ts";

export const memory = defineServer({
  name: "memory",
  defaults: { user_id: "default" },
  tools: {
    get_global_memory: { params: ["user_id"], output: "user_id->global_memory_content,current_user_id" },
    save_memory: { params: ["user_id", "q_ls", "ans_ls"], output: "user_id,q_ls,ans_ls->None" },
  },
});
