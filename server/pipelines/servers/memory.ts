/**
 * servers/memory (spec §5.10): a per-user global memory and a project memory of past turns. Where it
 * lives is the run's MemoryStore (CallContext.memory): the database for runs in the web app — per
 * Argus user and workspace, `user_id` naming a profile within them, so no parameter reaches another
 * user's memory (server/pipelines/memory-db.ts) — else UltraRAG's files under
 * `$ULTRARAG_UI_STORAGE_ROOT` (default `ui/storage` in the run's directory) `/memory/<user_id>/`:
 * `MEMORY.md` and `project/<YYYY-MM-DD>.md`. `save_memory` is never run as a step: the engine skips
 * it and auto-saves the run's first question and answer after the run (spec §2.12). User ids are
 * letters, digits, `_` and `-` only, so no id reaches outside its folder. Difference: a new global
 * memory starts as just its heading (upstream seeds a sample sentence).
 */
import { runFiles } from "./run-files.ts";
import { existsSync } from "node:fs";
import { appendFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { CallContext, MemoryStore, MemoryTurn } from "./contract.ts";
import { defineServer, describe, listArg, ToolError } from "./define.ts";

const USER = /^[A-Za-z0-9_-]{1,64}$/;
const pad = (n: number) => String(n).padStart(2, "0");
export const MEMORY_HEADING = "# MEMORY\n";

/** The `user_id` parameter as a profile name ("default" when unset), or a ToolError. */
export function memoryProfile(user: unknown, tool: string): string {
  const id = user === undefined || user === null || user === "" ? "default" : user;
  if (typeof id !== "string" || !USER.test(id))
    throw new ToolError(`${tool}: user_id must be letters, digits, '_' or '-', got ${describe(user)}`);
  return id;
}

const dayOf = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const timeOf = (d: Date) => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;

/** UltraRAG's memory files under `root` (`<root>/memory/<user>/…`). */
export function fileMemoryStore(root: string): MemoryStore {
  const dir = (user: string) => path.join(root, "memory", user);
  return {
    async global(user) {
      const file = path.join(dir(user), "MEMORY.md");
      if (!existsSync(file)) {
        await mkdir(dir(user), { recursive: true });
        await writeFile(file, MEMORY_HEADING, { flag: "wx" }).catch(() => undefined);
      }
      return readFile(file, "utf8");
    },
    async saveTurn(user, turn) {
      const date = dayOf(turn.at);
      const file = path.join(dir(user), "project", `${date}.md`);
      await mkdir(path.dirname(file), { recursive: true });
      if (!existsSync(file)) await writeFile(file, `# Project Memory ${date}\n`, { flag: "wx" }).catch(() => undefined);
      await appendFile(
        file,
        `\n## ${date} ${timeOf(turn.at)}\n- user: ${turn.question}\n- assistant: ${turn.answer}\n`,
      );
    },
    async turns(user, limit) {
      const project = path.join(dir(user), "project");
      const days = existsSync(project) ? (await readdir(project)).filter((f) => /^\d{4}-\d{2}-\d{2}\.md$/.test(f)) : [];
      const out: MemoryTurn[] = [];
      for (const day of days.sort().reverse()) {
        const text = await readFile(path.join(project, day), "utf8");
        const turns = text
          .split("\n## ")
          .slice(1)
          .flatMap((section) => {
            const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})\n- user: ([\s\S]*?)\n- assistant: ([\s\S]*)$/.exec(
              section,
            );
            return m ? [{ question: m[3]!, answer: m[4]!.replace(/\n$/, ""), at: new Date(`${m[1]}T${m[2]}`) }] : [];
          });
        out.push(...turns.reverse());
        if (out.length >= limit) break;
      }
      return out.slice(0, limit);
    },
  };
}

/** The run's memory store: the one it was given, else the files under the storage root. */
export function memoryStoreFor(ctx: CallContext): MemoryStore {
  if (ctx.memory) return ctx.memory;
  // UltraRAG's files: ULTRARAG_UI_STORAGE_ROOT is the operator's setting (command-line runs only).
  const root = ctx.operatorEnv?.ULTRARAG_UI_STORAGE_ROOT || "ui/storage";
  return fileMemoryStore(runFiles(ctx).locate(root, "ULTRARAG_UI_STORAGE_ROOT", "memory"));
}

/** One turn's text as the project memory shows it to the model. */
export const turnText = (t: MemoryTurn) => `- user: ${t.question}\n- assistant: ${t.answer}`;

export const memory = defineServer({
  name: "memory",
  defaults: { user_id: "default" },
  tools: {
    get_global_memory: {
      params: ["user_id"],
      output: "user_id->global_memory_content,current_user_id",
      async run(args, ctx) {
        const user = memoryProfile(args.user_id, "memory.get_global_memory");
        return { global_memory_content: await memoryStoreFor(ctx).global(user), current_user_id: user };
      },
    },
    save_memory: {
      params: ["user_id", "q_ls", "ans_ls"],
      output: "user_id,q_ls,ans_ls->None",
      async run(args, ctx) {
        const user = memoryProfile(args.user_id, "memory.save_memory");
        const q = listArg(args, "q_ls", "memory.save_memory")[0];
        const a = listArg(args, "ans_ls", "memory.save_memory")[0];
        if (q === undefined || a === undefined) return {};
        await memoryStoreFor(ctx).saveTurn(user, { question: String(q), answer: String(a), at: new Date() });
        return {};
      },
    },
  },
});
