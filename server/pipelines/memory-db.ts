/**
 * Pipeline memory in the database, for runs in the web app: one `pipeline_memory` row per workspace,
 * Argus user and profile (the memory server's `user_id` parameter), its turns in
 * `pipeline_memory_turn`. The user is the one who started the run — never a parameter — so a
 * pipeline can only read and extend the memory of whoever runs it. Texts are capped and a profile
 * keeps its latest MAX_TURNS turns.
 */
import { isUniqueViolation, type Db } from "../db/client.ts";
import type { MemoryStore } from "./servers/contract.ts";
import { MEMORY_HEADING } from "./servers/memory.ts";

export const MAX_MEMORY_TEXT = 20_000;
export const MAX_TURNS = 2_000;

const clip = (s: string) => (s.length > MAX_MEMORY_TEXT ? `${s.slice(0, MAX_MEMORY_TEXT)}…` : s);

export function dbMemoryStore(db: Db, owner: { workspaceId: string; userId: string }): MemoryStore {
  const key = (profile: string) => ({ workspaceId_userId_profile: { ...owner, profile } });
  const row = async (profile: string) => {
    try {
      return await db.pipelineMemory.upsert({
        where: key(profile),
        create: { ...owner, profile, global: MEMORY_HEADING },
        update: {},
      });
    } catch (err) {
      // Two runs creating the same profile at once: the other one's row is the row.
      if (!isUniqueViolation(err)) throw err;
      return db.pipelineMemory.findUniqueOrThrow({ where: key(profile) });
    }
  };
  return {
    async global(profile) {
      return (await row(profile)).global;
    },
    async saveTurn(profile, turn) {
      const memory = await row(profile);
      await db.pipelineMemoryTurn.create({
        data: { memoryId: memory.id, question: clip(turn.question), answer: clip(turn.answer), createdAt: turn.at },
      });
      const stale = await db.pipelineMemoryTurn.findMany({
        where: { memoryId: memory.id },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        skip: MAX_TURNS,
        select: { id: true },
      });
      if (stale.length) await db.pipelineMemoryTurn.deleteMany({ where: { id: { in: stale.map((t) => t.id) } } });
    },
    async turns(profile, limit) {
      const memory = await db.pipelineMemory.findUnique({ where: key(profile), select: { id: true } });
      if (!memory) return [];
      const rows = await db.pipelineMemoryTurn.findMany({
        where: { memoryId: memory.id },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: limit,
      });
      return rows.map((t) => ({ question: t.question, answer: t.answer, at: t.createdAt }));
    },
  };
}
