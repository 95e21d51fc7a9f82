/**
 * Review prompts (Argus seed semantics): CRUD, at most one default per workspace (setting one unsets
 * the others in the same transaction), the default cannot be deleted, built-ins are read-only.
 */
import { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import { uniqueViolationFields, type Db, type Prompt, type Tx } from "../db/client.ts";
import { insertWithClientUid } from "../db/client-uid.ts";
import { conflict, notFound } from "../errors.ts";
import type { DraftEndings } from "../coedit/endings.ts";
import { promptRoom } from "../shared/rooms.ts";

export const promptName = z
  .string()
  .trim()
  .min(1, "Give the prompt a name.")
  .max(120, "Keep the name under 120 characters.");
export const promptContent = z
  .string()
  .refine((s) => s.trim().length > 0, "The prompt text is empty.")
  .refine((s) => s.length <= 100_000, "Keep the prompt under 100,000 characters.");

export const createPromptInput = z.object({
  workspaceId: z.string().min(1),
  uid: z.uuid("uid must be a UUID"),
  name: promptName,
  content: promptContent,
  isDefault: z.boolean().default(false),
});
export const updatePromptInput = z.object({
  uid: z.uuid(),
  name: promptName.optional(),
  content: promptContent.optional(),
});
export const setDefaultInput = z.object({ uid: z.uuid(), isDefault: z.boolean() });
export const duplicatePromptInput = z.object({ uid: z.uuid(), newUid: z.uuid("newUid must be a UUID") });

export type PromptView = Omit<Prompt, "workspaceId" | "builtinKey" | "id"> & { workspaceId: string };

function view(p: Prompt): PromptView {
  const { id: _id, builtinKey: _key, ...rest } = p;
  return rest;
}

/**
 * Runs a transaction that may make a prompt the default. When two such transactions overlap (on
 * PostgreSQL both can clear the old default before either commits), the partial unique index lets
 * one commit and fails the other; re-running it then sees the new default and succeeds. Last one wins.
 */
async function retryDefaultRace<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const defaultRace = uniqueViolationFields(err).join() === "workspaceId";
      if (!defaultRace || attempt >= 5) throw err;
    }
  }
}

const READ_ONLY = "Built-in prompts are read-only. Duplicate it to make an editable copy.";

export function createPromptService(db: Db, draftEndings?: Pick<DraftEndings, "emit">) {
  async function load(uid: string): Promise<Prompt> {
    const prompt = await db.prompt.findUnique({ where: { uid } });
    if (!prompt) throw notFound(`No prompt with id ${uid}. It may have been deleted.`);
    return prompt;
  }

  async function loadFor(actor: Actor, uid: string, role: "viewer" | "member"): Promise<Prompt> {
    const prompt = await load(uid);
    await requireRole(db, actor, prompt.workspaceId, role);
    return prompt;
  }

  async function unsetDefaults(tx: Tx, workspaceId: string) {
    await tx.prompt.updateMany({ where: { workspaceId, isDefault: true }, data: { isDefault: false } });
  }

  return {
    async list(actor: Actor, workspaceId: string): Promise<PromptView[]> {
      await requireRole(db, actor, workspaceId, "viewer");
      const rows = await db.prompt.findMany({
        where: { workspaceId },
        orderBy: [{ isDefault: "desc" }, { isBuiltin: "asc" }, { name: "asc" }],
      });
      return rows.map(view);
    },

    async get(actor: Actor, uid: string): Promise<PromptView> {
      return view(await loadFor(actor, uid, "viewer"));
    },

    async create(actor: Actor, input: z.infer<typeof createPromptInput>): Promise<PromptView> {
      await requireRole(db, actor, input.workspaceId, "member");
      const created = await insertWithClientUid("prompt", () =>
        retryDefaultRace(() =>
          db.$transaction(async (tx) => {
            if (input.isDefault) await unsetDefaults(tx, input.workspaceId);
            return tx.prompt.create({
              data: {
                uid: input.uid,
                workspaceId: input.workspaceId,
                name: input.name,
                content: input.content,
                isDefault: input.isDefault,
              },
            });
          }),
        ),
      );
      return view(created);
    },

    async update(actor: Actor, input: z.infer<typeof updatePromptInput>): Promise<PromptView> {
      const prompt = await loadFor(actor, input.uid, "member");
      if (prompt.isBuiltin) throw conflict(READ_ONLY);
      const contentChanged = input.content !== undefined && input.content !== prompt.content;
      const updated = await db.prompt.update({
        where: { id: prompt.id },
        data: {
          name: input.name,
          content: input.content,
          // The version counts wording changes: reviews snapshot the prompt with its version.
          version: contentChanged ? { increment: 1 } : undefined,
        },
      });
      return view(updated);
    },

    async setDefault(actor: Actor, input: z.infer<typeof setDefaultInput>): Promise<PromptView> {
      const prompt = await loadFor(actor, input.uid, "member");
      const updated = await retryDefaultRace(() =>
        db.$transaction(async (tx) => {
          if (input.isDefault) await unsetDefaults(tx, prompt.workspaceId);
          return tx.prompt.update({ where: { id: prompt.id }, data: { isDefault: input.isDefault } });
        }),
      );
      return view(updated);
    },

    async duplicate(actor: Actor, input: z.infer<typeof duplicatePromptInput>): Promise<PromptView> {
      const source = await loadFor(actor, input.uid, "member");
      const copy = await insertWithClientUid("prompt", () =>
        db.prompt.create({
          data: {
            uid: input.newUid,
            workspaceId: source.workspaceId,
            name: `${source.name} (copy)`.slice(0, 120),
            content: source.content,
          },
        }),
      );
      return view(copy);
    },

    async remove(actor: Actor, uid: string): Promise<void> {
      const prompt = await loadFor(actor, uid, "member");
      if (prompt.isBuiltin) throw conflict("Built-in prompts can't be deleted. Duplicate one to make your own copy.");
      if (prompt.isDefault) {
        throw conflict(
          "This is the default review prompt. Make another prompt the default first, then delete this one.",
        );
      }
      // deleteMany + a re-check inside one statement: a concurrent "set default" cannot slip between.
      const { count } = await db.prompt.deleteMany({ where: { id: prompt.id, isDefault: false } });
      if (count === 0) throw conflict("This prompt just became the default; make another prompt the default first.");
      await draftEndings?.emit(promptRoom(prompt.uid), "This prompt was deleted; its shared draft is closed.");
    },
  };
}

export type PromptService = ReturnType<typeof createPromptService>;
