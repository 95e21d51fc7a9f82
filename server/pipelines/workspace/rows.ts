/**
 * What every part of the pipelines service shares: its dependencies, and the rows it loads with the
 * caller's role checked (a pipeline, a run, a gallery entry), the sealed API keys, user names.
 */
import { requireRole, type Actor } from "../../auth/access.ts";
import type { Config } from "../../config.ts";
import type { Signals } from "../../cluster/signals.ts";
import type { Db } from "../../db/client.ts";
import { notFound } from "../../errors.ts";
import type { EventBus } from "../../events/bus.ts";
import type { JobQueue } from "../../jobs/queue.ts";
import type { SecretBox } from "../../lib/secret-box.ts";
import type { Logger } from "../../logger.ts";
import type { DraftEndings } from "../../coedit/endings.ts";
import type { RunService } from "../runs.ts";
import { galleryEntry } from "./gallery.ts";
import { inspectPipeline } from "./inspect.ts";
import type { Secrets } from "./parameters.ts";

export interface PipelineDeps {
  db: Db;
  config: Config;
  events: EventBus;
  log: Logger;
  queue: JobQueue;
  signals?: Signals;
  /** Seals the API keys typed into pipelines' parameters (and a run's overrides on the queue). */
  box: SecretBox;
  runs: RunService;
  /** Where web runs get their folders (run-dir.ts). */
  root: string;
  /** Told when a pipeline is deleted: its shared draft ends (server/coedit). */
  draftEndings?: Pick<DraftEndings, "emit">;
}

export type Needs = "none" | "llm" | "web" | "knowledge";

export const fileName = (name: string) => `${name}.yaml`;

export function openSecrets(box: SecretBox, sealed: string | null): Secrets {
  if (!sealed) return {};
  try {
    return JSON.parse(box.open(sealed)) as Secrets;
  } catch {
    return {}; // AUTH_SECRET changed: the keys must be entered again (the form shows them unset).
  }
}

export const sealSecrets = (box: SecretBox, s: Secrets) => (Object.keys(s).length ? box.seal(JSON.stringify(s)) : null);

export async function loadPipeline(db: Db, actor: Actor, pipelineUid: string, role: "viewer" | "member") {
  const row = await db.pipeline.findUnique({ where: { uid: pipelineUid } });
  if (!row) throw notFound(`No pipeline with id ${pipelineUid}. It may have been deleted.`);
  await requireRole(db, actor, row.workspaceId, role);
  return row;
}

export function loadGallery(key: string) {
  const entry = galleryEntry(key);
  if (!entry) throw notFound(`The gallery has no pipeline "${key}".`);
  return entry;
}

export async function loadRun(db: Db, actor: Actor, runUid: string, role: "viewer" | "member") {
  const row = await db.pipelineRun.findUnique({
    where: { uid: runUid },
    include: { pipeline: { select: { uid: true } } },
  });
  // CLI runs belong to no workspace: nobody sees them in the app.
  if (!row || !row.workspaceId) throw notFound(`No pipeline run ${runUid}.`);
  await requireRole(db, actor, row.workspaceId, role);
  return row;
}

export type LoadedRun = Awaited<ReturnType<typeof loadRun>>;

/** The names of these users, by id (null for an unknown or missing id). */
export async function userNames(db: Db, ids: (string | null)[]) {
  const wanted = [...new Set(ids.filter((x): x is string => Boolean(x)))];
  const users = wanted.length
    ? await db.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true } })
    : [];
  const names = new Map(users.map((u) => [u.id, u.name]));
  return (id: string | null) => (id ? (names.get(id) ?? null) : null);
}

/** Front matter → the card fields (title falls back to the name). */
export async function metaOf(name: string, text: string, parameters: Record<string, unknown>) {
  const inspection = await inspectPipeline(text, { file: fileName(name), parameters });
  const meta = inspection.meta;
  return {
    inspection,
    title: meta?.title ?? name,
    description: meta?.description ?? "",
    tags: meta?.tags ?? [],
    needs: (meta?.needs ?? "none") as Needs,
    errors: inspection.diagnostics.filter((d) => d.severity === "error").length,
  };
}
