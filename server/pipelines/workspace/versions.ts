/**
 * A workspace's own pipelines and their versions: created from YAML or forked from the gallery,
 * saved as new versions (a draft, valid = false, when the YAML has errors), deleted, listed and
 * diffed. Members write; viewers read the versions.
 */
import { randomUUID } from "node:crypto";
import { stringify } from "yaml";
import type { z } from "zod";
import { requireRole, type Actor } from "../../auth/access.ts";
import { isUniqueViolation } from "../../db/client.ts";
import { conflict, notFound } from "../../errors.ts";
import { pipelineRoom } from "../../shared/rooms.ts";
import { lineDiff } from "./diff.ts";
import type { createInput, diffInput, forkInput, saveInput } from "./inputs.ts";
import { withKnowledgeBase } from "./kb-preset.ts";
import { splitSecrets } from "./parameters.ts";
import { loadGallery, loadPipeline, metaOf, openSecrets, type PipelineDeps, sealSecrets, userNames } from "./rows.ts";

export async function createPipeline(d: PipelineDeps, actor: Actor, input: z.infer<typeof createInput>) {
  await requireRole(d.db, actor, input.workspaceId, "member");
  return insert(d, actor!, {
    workspaceId: input.workspaceId,
    name: input.name,
    source: input.source,
    parameters: input.parameters ?? {},
  });
}

export async function forkPipeline(d: PipelineDeps, actor: Actor, input: z.infer<typeof forkInput>) {
  await requireRole(d.db, actor, input.workspaceId, "member");
  const entry = loadGallery(input.key);
  let parameters = entry.parameters;
  if (input.knowledgeBaseUid) {
    const base = await d.db.knowledgeBase.findUnique({ where: { uid: input.knowledgeBaseUid } });
    if (!base || base.workspaceId !== input.workspaceId)
      throw notFound(`No knowledge base with id ${input.knowledgeBaseUid} in this workspace.`);
    parameters = withKnowledgeBase(entry, base.name);
  }
  const name = input.name ?? (await uniqueName(d, input.workspaceId, entry.key));
  return insert(d, actor!, {
    workspaceId: input.workspaceId,
    name,
    source: entry.source,
    parameters,
    forkedFrom: entry.key,
  });
}

/** The wanted name, or the first `<name>_<n>` free in the workspace. */
async function uniqueName({ db }: PipelineDeps, workspace: string, wanted: string) {
  const taken = new Set(
    (await db.pipeline.findMany({ where: { workspaceId: workspace }, select: { name: true } })).map((p) => p.name),
  );
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n++) if (!taken.has(`${wanted}_${n}`)) return `${wanted}_${n}`;
}

/** A new pipeline row with its version 1. */
async function insert(
  { db, box }: PipelineDeps,
  actor: NonNullable<Actor>,
  data: { workspaceId: string; name: string; source: string; parameters: Record<string, unknown>; forkedFrom?: string },
) {
  const { parameters, secrets } = splitSecrets(data.parameters, {});
  const meta = await metaOf(data.name, data.source, parameters);
  const valid = meta.errors === 0;
  try {
    const row = await db.pipeline.create({
      data: {
        uid: randomUUID(),
        workspaceId: data.workspaceId,
        name: data.name,
        title: meta.title,
        description: meta.description,
        tags: JSON.stringify(meta.tags),
        needs: meta.needs,
        ...(data.forkedFrom ? { forkedFrom: data.forkedFrom } : {}),
        source: data.source,
        parameters: JSON.stringify(parameters),
        secrets: sealSecrets(box, secrets),
        valid,
        createdById: actor.userId,
        versions: {
          create: {
            version: 1,
            source: data.source,
            parameters: JSON.stringify(parameters),
            valid,
            errors: meta.errors,
            message: data.forkedFrom ? `Forked from the gallery's ${data.forkedFrom}` : "Imported",
            createdById: actor.userId,
          },
        },
      },
    });
    return { uid: row.uid, name: row.name, valid, errors: meta.errors };
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`A pipeline named "${data.name}" already exists in this workspace.`);
    throw err;
  }
}

/**
 * A new version (a draft when the YAML has errors); the parameters sent replace the stored ones.
 * `editedBy`: who edited the shared draft since the last version (server/coedit).
 */
export async function savePipeline(
  { db, box }: PipelineDeps,
  actor: Actor,
  input: z.infer<typeof saveInput>,
  opts: { editedBy?: string[] } = {},
) {
  const row = await loadPipeline(db, actor, input.uid, "member");
  const split = input.parameters
    ? splitSecrets(input.parameters, openSecrets(box, row.secrets))
    : { parameters: JSON.parse(row.parameters) as Record<string, unknown>, secrets: openSecrets(box, row.secrets) };
  const meta = await metaOf(row.name, input.source, split.parameters);
  const valid = meta.errors === 0;
  const version = await db.$transaction(async (tx) => {
    const current = await tx.pipeline.findUniqueOrThrow({ where: { id: row.id }, select: { version: true } });
    const next = current.version + 1;
    await tx.pipelineVersion.create({
      data: {
        pipelineId: row.id,
        version: next,
        source: input.source,
        parameters: JSON.stringify(split.parameters),
        valid,
        errors: meta.errors,
        message: input.message ?? null,
        createdById: actor!.userId,
        editedBy: JSON.stringify(opts.editedBy ?? [actor!.userId]),
      },
    });
    await tx.pipeline.update({
      where: { id: row.id },
      data: {
        version: next,
        source: input.source,
        parameters: JSON.stringify(split.parameters),
        secrets: sealSecrets(box, split.secrets),
        valid,
        title: meta.title,
        description: meta.description,
        tags: JSON.stringify(meta.tags),
        needs: meta.needs,
      },
    });
    return next;
  });
  return { version, valid, errors: meta.errors, diagnostics: meta.inspection.diagnostics };
}

export async function removePipeline({ db, draftEndings }: PipelineDeps, actor: Actor, pipelineUid: string) {
  const row = await loadPipeline(db, actor, pipelineUid, "member");
  const running = await db.pipelineRun.count({ where: { pipelineId: row.id, status: "running" } });
  if (running) throw conflict("This pipeline has a run in progress: cancel it or wait for it to finish first.");
  await db.pipeline.delete({ where: { id: row.id } });
  await draftEndings?.emit(pipelineRoom(row.uid), "This pipeline was deleted; its shared draft is closed.");
  return { ok: true as const };
}

export async function listVersions({ db }: PipelineDeps, actor: Actor, pipelineUid: string) {
  const row = await loadPipeline(db, actor, pipelineUid, "viewer");
  const versions = await db.pipelineVersion.findMany({
    where: { pipelineId: row.id },
    orderBy: { version: "desc" },
    select: { version: true, valid: true, errors: true, message: true, createdAt: true, createdById: true },
  });
  const name = await userNames(
    db,
    versions.map((v) => v.createdById),
  );
  return versions.map(({ createdById, ...v }) => ({ ...v, createdBy: name(createdById) }));
}

export async function diffVersions({ db }: PipelineDeps, actor: Actor, input: z.infer<typeof diffInput>) {
  const row = await loadPipeline(db, actor, input.uid, "viewer");
  const found = await db.pipelineVersion.findMany({
    where: { pipelineId: row.id, version: { in: [input.from, input.to] } },
  });
  const get = (v: number) => {
    const hit = found.find((f) => f.version === v);
    if (!hit) throw notFound(`This pipeline has no version ${v}.`);
    return hit;
  };
  const [a, b] = [get(input.from), get(input.to)];
  const paramsYaml = (json: string) => {
    const v = JSON.parse(json) as Record<string, unknown>;
    return Object.keys(v).length ? stringify(v, { indentSeq: false, lineWidth: 0 }) : "";
  };
  return {
    from: input.from,
    to: input.to,
    source: lineDiff(a.source, b.source),
    parameters: lineDiff(paramsYaml(a.parameters), paramsYaml(b.parameters)),
  };
}
