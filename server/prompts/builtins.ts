/**
 * Built-in review prompts from prompts/review/. Seeded into every workspace on every start and when a
 * workspace is created. Idempotent: ids are uuid5(workspace, key), a unique index on
 * (workspaceId, builtinKey) stops concurrent starts from inserting twice, and unchanged text is left
 * alone — a restart writes nothing.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { isUniqueViolation, type Db, type Tx } from "../db/client.ts";
import { uuid5 } from "../lib/uuid5.ts";

const promptsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../prompts/review");

const manifestSchema = z.object({
  prompts: z.array(
    z.object({
      key: z.string().regex(/^[a-z0-9-]+$/),
      name: z.string().min(1),
      file: z.string(),
      default: z.boolean().optional(),
    }),
  ),
});

export interface BuiltinPrompt {
  key: string;
  name: string;
  content: string;
  isDefault: boolean;
}

export function loadBuiltinPrompts(dir = promptsDir): BuiltinPrompt[] {
  const manifest = manifestSchema.parse(JSON.parse(readFileSync(path.join(dir, "index.json"), "utf8")));
  return manifest.prompts.map((p) => ({
    key: p.key,
    name: p.name,
    content: readFileSync(path.join(dir, p.file), "utf8").trim(),
    isDefault: p.default ?? false,
  }));
}

export function builtinUid(workspaceId: string, key: string): string {
  return uuid5(`prompt:${workspaceId}:${key}`);
}

export interface SeedResult {
  inserted: number;
  updated: number;
}

/** Seeds one workspace's built-ins (with a transaction client when part of a larger change). */
export async function seedBuiltinPrompts(
  db: Db | Tx,
  workspaceId: string,
  builtins = loadBuiltinPrompts(),
): Promise<SeedResult> {
  const result: SeedResult = { inserted: 0, updated: 0 };
  const existing = await db.prompt.findMany({
    where: { workspaceId, isBuiltin: true },
    select: { id: true, builtinKey: true, name: true, content: true },
  });
  const byKey = new Map(existing.map((p) => [p.builtinKey, p]));
  const hasDefault = (await db.prompt.count({ where: { workspaceId, isDefault: true } })) > 0;

  for (const b of builtins) {
    const row = byKey.get(b.key);
    if (row) {
      if (row.content !== b.content || row.name !== b.name) {
        await db.prompt.update({
          where: { id: row.id },
          data: { name: b.name, content: b.content, version: { increment: 1 } },
        });
        result.updated++;
      }
      continue;
    }
    try {
      await db.prompt.create({
        data: {
          uid: builtinUid(workspaceId, b.key),
          workspaceId,
          builtinKey: b.key,
          name: b.name,
          content: b.content,
          isBuiltin: true,
          // Only a workspace without any default gets one; a user's choice is never overridden.
          isDefault: b.isDefault && !hasDefault,
        },
      });
      result.inserted++;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err; // another process seeded it first
    }
  }
  return result;
}

export async function seedAllWorkspaces(db: Db): Promise<SeedResult> {
  const builtins = loadBuiltinPrompts();
  const total: SeedResult = { inserted: 0, updated: 0 };
  for (const { id } of await db.workspace.findMany({ select: { id: true } })) {
    const r = await seedBuiltinPrompts(db, id, builtins);
    total.inserted += r.inserted;
    total.updated += r.updated;
  }
  return total;
}
