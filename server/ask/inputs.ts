/**
 * What the ask service's calls take (service.ts): the tRPC inputs, checked by zod, and a pull
 * request's `@argus` question.
 */
import { z } from "zod";
import { askBudgetSchema, questionSchema } from "../shared/ask.ts";
import { ENVIRONMENT_CONNECTION } from "./context.ts";

const uid = z.uuid();

export const askInput = z
  .object({
    question: questionSchema,
    /** A follow-up in this thread. */
    threadUid: uid.optional(),
    /** A new thread about the project's latest code … */
    projectUid: uid.optional(),
    /** … or about a review's code (its room, its snapshot) … */
    reviewUid: uid.optional(),
    /** … and one of its findings ("Ask about this finding"). */
    fingerprint: z.string().min(1).max(200).optional(),
    /** The model connection for this answer: a connection's uid, or "environment" for the server's
     * default; omitted = the workspace's default. */
    connectionUid: z.union([uid, z.literal(ENVIRONMENT_CONNECTION)]).optional(),
  })
  .refine((v) => [v.threadUid, v.projectUid, v.reviewUid].filter(Boolean).length === 1, {
    message: "name exactly one of threadUid (a follow-up), projectUid or reviewUid (a new thread)",
    path: ["threadUid"],
  })
  .refine((v) => !v.fingerprint || v.reviewUid, {
    message: "a finding (fingerprint) is asked about from its review: give reviewUid with it",
    path: ["fingerprint"],
  });

export const threadsInput = z.object({ projectUid: uid, reviewUid: uid.optional() });
export const threadInput = z.object({ threadUid: uid });
export const cancelInput = z.object({ answerUid: uid });
export const budgetInput = z.object({ workspaceId: z.string().min(1) });
export const setBudgetInput = askBudgetSchema.extend({ workspaceId: z.string().min(1) });

/** An `@argus` question from a pull request (server/forges/mentions.ts). */
export interface ForgeQuestion {
  /** Over a review's snapshot, in its room (and about one of its findings) … */
  reviewUid?: string;
  fingerprint?: string;
  /** … or over the project's current snapshot, in the project's room. */
  projectUid?: string;
  question: string;
  /** The forge's user (server/shared/forge-people.ts): the question's author in the room. */
  asker: { id: string; name: string };
}
