/**
 * The events of each kind of room: one payload map per kind, one zod discriminated union of
 * `{ type, payload }` per kind built from it. The bus accepts only a member of the room's union when
 * publishing and parses every row it reads back; the Socket.IO messages and the browser use the same
 * types. Every event a room ever carried is listed here — nothing is published with a shape of its own.
 */
import { z } from "zod";
import { agentPayloads } from "./agent-events.ts";
import { askPayloads } from "./ask.ts";
import { type Enveloped, envelopeUnion, type PayloadMap } from "./event-union.ts";
import type { RoomKind, RoomName } from "./rooms.ts";
import { chatMessageSchema } from "./room-chat.ts";
import { messageReactionsSchema } from "./room-reactions.ts";
import { REVIEW_STATUSES } from "./statuses.ts";
import { steeringPayloads } from "./steering.ts";
import { voteSchema } from "./team-verdicts.ts";

/** Token deltas: coalesced by the bus into one frame per room and time window (see server/events/bus.ts). */
export const TOKEN_EVENT = "token";
/** Every event type the bus coalesces: the agent's tokens and an answer's (server/shared/ask.ts). */
export const TOKEN_EVENTS: ReadonlySet<string> = new Set([TOKEN_EVENT, "ask.token"]);
/**
 * The payload fields that tell one token stream of a room from another (the bus coalesces each
 * stream on its own): a review has one agent stream per room (its phase changes within it); answers
 * stream one per answer.
 */
export const TOKEN_STREAM_FIELDS: Readonly<Record<string, readonly string[]>> = {
  [TOKEN_EVENT]: [],
  "ask.token": ["answerId"],
};

const fingerprint = z.string().min(1).max(200);

/** What every kind of room carries besides its own events: the team's chat. */
const teamPayloads = {
  /** A chat message as it is now (written, edited or deleted: the highest version wins). */
  chat_message: chatMessageSchema,
  /** A message's reactions as they now are (the latest event of a message is its state). */
  chat_reactions: messageReactionsSchema,
} satisfies PayloadMap;

/** A review room: the agent's work, the review's life, and what the team does with its findings. */
export const reviewPayloads = {
  ...agentPayloads,
  ...teamPayloads,
  ...askPayloads,
  ...steeringPayloads,
  /** The review's own status (queued, running, completed …), not the agent's phase (`status`). */
  review_status: z.object({ status: z.enum(REVIEW_STATUSES), reason: z.string().nullable().optional() }),
  /** The static engine's progress. */
  progress: z.object({ fraction: z.number().min(0).max(1), stage: z.string() }),
  finding_dismissed: z.object({ fingerprint }),
  finding_restored: z.object({ fingerprint }),
  /** A finding's votes as they now are (the latest event of a finding is its state). */
  finding_votes: z.object({ fingerprint, votes: z.array(voteSchema) }),
  finding_resolved: z.object({
    fingerprint,
    resolved: z.boolean(),
    by: z.object({ id: z.string(), name: z.string() }),
    at: z.string(),
  }),
  /** How many messages a finding's thread has now. */
  thread_count: z.object({ fingerprint, count: z.number().int().nonnegative() }),
} satisfies PayloadMap;

/** A project room: the team's talk about a project, and its conversations with Argus (server/ask). */
export const projectPayloads = { ...teamPayloads, ...askPayloads } satisfies PayloadMap;

const sourceSchema = z.object({ id: z.number(), title: z.string(), content: z.string() });

/** A pipeline run room: the engine's events (docs/pipelines.md), tokens as `{ text, step, is_final }`. */
export const runPayloads = {
  ...teamPayloads,
  step_start: z.object({ name: z.string(), depth: z.number().int().nonnegative() }),
  /** `tokens`: the model tokens the step's requests used (absent when it made none). */
  step_end: z.object({
    name: z.string(),
    output: z.string(),
    tokens: z.object({ input: z.number().int().nonnegative(), output: z.number().int().nonnegative() }).optional(),
  }),
  token: z.object({ text: z.string(), step: z.string(), is_final: z.boolean() }),
  sources: z.object({ data: z.array(sourceSchema) }),
  final: z.object({
    data: z.object({
      status: z.literal("succeeded"),
      answer: z.string().nullable(),
      dataset_path: z.string().nullable(),
      memory_path: z.string().nullable(),
      is_first_turn: z.literal(true),
    }),
  }),
  error: z.object({ message: z.string() }),
} satisfies PayloadMap;

/** A knowledge-base room: indexing progress and each document's outcome. */
export const kbPayloads = {
  ...teamPayloads,
  "kb.progress": z.object({ status: z.literal("indexing"), progress: z.number().min(0).max(1), message: z.string() }),
  "kb.document": z.object({
    uid: z.string(),
    name: z.string(),
    status: z.string(),
    message: z.string().nullable(),
    chunkCount: z.number().int().nonnegative(),
  }),
  "kb.indexed": z.object({
    documents: z.number().int().nonnegative(),
    chunks: z.number().int().nonnegative(),
    ms: z.number().nonnegative(),
  }),
  "kb.failed": z.object({ message: z.string() }),
} satisfies PayloadMap;

/** A pipeline's page: the team's talk about it while they build it (its runs have rooms of their own). */
export const pipelinePayloads = { ...teamPayloads } satisfies PayloadMap;

/** A review prompt's editor: the team's talk while they co-edit it (server/coedit). */
export const promptPayloads = { ...teamPayloads } satisfies PayloadMap;

export const roomPayloads = {
  review: reviewPayloads,
  project: projectPayloads,
  run: runPayloads,
  kb: kbPayloads,
  pipeline: pipelinePayloads,
  prompt: promptPayloads,
} satisfies Record<RoomKind, PayloadMap>;

/** What is published into a room of kind K: `{ type, payload }`, one of the kind's events. */
export type RoomEventBody<K extends RoomKind = RoomKind> = K extends K ? Enveloped<(typeof roomPayloads)[K]> : never;

export const roomEventSchemas: { [K in RoomKind]: z.ZodType<RoomEventBody<K>> } = {
  review: envelopeUnion(reviewPayloads),
  project: envelopeUnion(projectPayloads),
  run: envelopeUnion(runPayloads),
  kb: envelopeUnion(kbPayloads),
  pipeline: envelopeUnion(pipelinePayloads),
  prompt: envelopeUnion(promptPayloads),
};

/** A published event as subscribers and clients receive it: numbered per room (seq 1, 2, 3 …). */
export type RoomEvent<K extends RoomKind = RoomKind> = K extends K
  ? RoomEventBody<K> & { room: RoomName<K>; seq: number; at: string }
  : never;

/** The event types of a kind (e.g. for a switch that must be exhaustive). */
export type RoomEventType<K extends RoomKind> = RoomEventBody<K>["type"];
