/**
 * Reading the pipelines a workspace can run: its own (cards with their last run) and the gallery's,
 * one pipeline or gallery entry with its inspection, YAML checked as it is typed, the server catalog.
 * Viewers may do all of it.
 */
import type { z } from "zod";
import { requireRole, type Actor } from "../../auth/access.ts";
import type { Db } from "../../db/client.ts";
import { notFound } from "../../errors.ts";
import { galleryEntries } from "./gallery.ts";
import type { galleryInput, validateInput } from "./inputs.ts";
import { inspectPipeline, serverRegistry } from "./inspect.ts";
import { blankSecrets, maskStored } from "./parameters.ts";
import { fileName, loadGallery, loadPipeline, type Needs, openSecrets, type PipelineDeps } from "./rows.ts";

export async function listPipelines({ db }: PipelineDeps, actor: Actor, workspace: string) {
  await requireRole(db, actor, workspace, "viewer");
  const [rows, last] = await Promise.all([
    db.pipeline.findMany({ where: { workspaceId: workspace }, orderBy: [{ updatedAt: "desc" }, { id: "desc" }] }),
    lastRuns(db, workspace),
  ]);
  return {
    pipelines: rows.map((p) => ({
      uid: p.uid,
      name: p.name,
      title: p.title,
      description: p.description,
      tags: JSON.parse(p.tags) as string[],
      needs: p.needs as Needs,
      valid: p.valid,
      version: p.version,
      forkedFrom: p.forkedFrom,
      updatedAt: p.updatedAt,
      lastRun: last.pipeline(p.id),
    })),
    gallery: galleryEntries().map((e) => ({
      key: e.key,
      title: e.meta.title,
      description: e.meta.description,
      tags: e.meta.tags,
      needs: e.meta.needs,
      lastRun: last.gallery(e.key),
    })),
  };
}

/** The newest run of each pipeline and of each gallery entry (from the workspace's last 500). */
async function lastRuns(db: Db, workspace: string) {
  const rows = await db.pipelineRun.findMany({
    where: { workspaceId: workspace },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { uid: true, status: true, createdAt: true, pipelineId: true, galleryKey: true },
    take: 500,
  });
  const byPipeline = new Map<string, (typeof rows)[number]>();
  const byGallery = new Map<string, (typeof rows)[number]>();
  for (const r of rows) {
    if (r.pipelineId && !byPipeline.has(r.pipelineId)) byPipeline.set(r.pipelineId, r);
    if (r.galleryKey && !byGallery.has(r.galleryKey)) byGallery.set(r.galleryKey, r);
  }
  const view = (r: (typeof rows)[number] | undefined) =>
    r ? { uid: r.uid, status: r.status, createdAt: r.createdAt } : null;
  return { pipeline: (id: string) => view(byPipeline.get(id)), gallery: (key: string) => view(byGallery.get(key)) };
}

export async function galleryPipeline({ db }: PipelineDeps, actor: Actor, input: z.infer<typeof galleryInput>) {
  await requireRole(db, actor, input.workspaceId, "viewer");
  const entry = loadGallery(input.key);
  const parameters = blankSecrets(entry.parameters);
  return {
    key: entry.key,
    name: entry.key,
    source: entry.source,
    parameters,
    inspection: await inspectPipeline(entry.source, { file: fileName(entry.key), parameters }),
  };
}

export async function getPipeline({ db, box }: PipelineDeps, actor: Actor, pipelineUid: string) {
  const row = await loadPipeline(db, actor, pipelineUid, "viewer");
  const parameters = JSON.parse(row.parameters) as Record<string, unknown>;
  const secrets = openSecrets(box, row.secrets);
  return {
    uid: row.uid,
    workspaceId: row.workspaceId,
    name: row.name,
    title: row.title,
    forkedFrom: row.forkedFrom,
    version: row.version,
    valid: row.valid,
    source: row.source,
    parameters: maskStored(parameters, secrets),
    updatedAt: row.updatedAt,
    inspection: await inspectPipeline(row.source, { file: fileName(row.name), parameters, secrets }),
  };
}

export async function validateSource({ db }: PipelineDeps, actor: Actor, input: z.infer<typeof validateInput>) {
  await requireRole(db, actor, input.workspaceId, "viewer");
  return inspectPipeline(input.source, { file: "pipeline.yaml", parameters: input.parameters ?? {} });
}

export async function listServers({ db }: PipelineDeps, actor: Actor, workspace: string) {
  await requireRole(db, actor, workspace, "viewer");
  return serverRegistry();
}

/** The saved YAML and parameters of a pipeline, its stored secrets masked (a shared draft's start). */
export async function pipelineDraft({ db, box }: PipelineDeps, pipelineUid: string) {
  const row = await db.pipeline.findUnique({ where: { uid: pipelineUid } });
  if (!row) throw notFound(`No pipeline with id ${pipelineUid}. It may have been deleted.`);
  const parameters = JSON.parse(row.parameters) as Record<string, unknown>;
  return { source: row.source, parameters: maskStored(parameters, openSecrets(box, row.secrets)) };
}
