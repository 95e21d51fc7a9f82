/**
 * servers/memory (spec §5.10): a per-user global memory (`MEMORY.md`) and a project memory of past
 * turns (`project/<YYYY-MM-DD>.md`), as files under `$ULTRARAG_UI_STORAGE_ROOT` (default
 * `ui/storage` in the run's directory) `/memory/<user_id>/`, as upstream. `save_memory` is never run
 * as a step: the engine skips it and auto-saves the run's first question and answer after the run
 * (spec §2.12). User ids are letters, digits, `_` and `-` only, so no id reaches outside its folder.
 * Difference: a new MEMORY.md starts as just its heading (upstream seeds a sample sentence).
 */
import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { CallContext } from "./contract.ts";
import { defineServer, describe, listArg, ToolError } from "./define.ts";

const USER = /^[A-Za-z0-9_-]{1,64}$/;
const pad = (n: number) => String(n).padStart(2, "0");

function userDir(ctx: CallContext, user: unknown, tool: string): { dir: string; user: string } {
  const id = user === undefined || user === null || user === "" ? "default" : user;
  if (typeof id !== "string" || !USER.test(id))
    throw new ToolError(`memory.${tool}: user_id must be letters, digits, '_' or '-', got ${describe(user)}`);
  const root = path.resolve(ctx.cwd, process.env.ULTRARAG_UI_STORAGE_ROOT || "ui/storage");
  return { dir: path.join(root, "memory", id), user: id };
}

export const memory = defineServer({
  name: "memory",
  defaults: { user_id: "default" },
  tools: {
    get_global_memory: {
      params: ["user_id"],
      output: "user_id->global_memory_content,current_user_id",
      async run(args, ctx) {
        const { dir, user } = userDir(ctx, args.user_id, "get_global_memory");
        const file = path.join(dir, "MEMORY.md");
        if (!existsSync(file)) {
          await mkdir(dir, { recursive: true });
          await writeFile(file, "# MEMORY\n", { flag: "wx" }).catch(() => undefined);
        }
        return { global_memory_content: await readFile(file, "utf8"), current_user_id: user };
      },
    },
    save_memory: {
      params: ["user_id", "q_ls", "ans_ls"],
      output: "user_id,q_ls,ans_ls->None",
      async run(args, ctx) {
        const { dir } = userDir(ctx, args.user_id, "save_memory");
        const q = listArg(args, "q_ls", "memory.save_memory")[0];
        const a = listArg(args, "ans_ls", "memory.save_memory")[0];
        if (q === undefined || a === undefined) return {};
        const now = new Date();
        const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
        const time = `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
        const file = path.join(dir, "project", `${date}.md`);
        await mkdir(path.dirname(file), { recursive: true });
        if (!existsSync(file))
          await writeFile(file, `# Project Memory ${date}\n`, { flag: "wx" }).catch(() => undefined);
        await appendFile(file, `\n## ${date} ${time}\n- user: ${String(q)}\n- assistant: ${String(a)}\n`);
        return {};
      },
    },
  },
});
