/**
 * Pipelines in the web app: the built-in gallery and the workspace's own pipelines (forked from the
 * gallery or imported from YAML), their versions and diffs, and runs started from the browser.
 * Viewers list, read, validate and watch; members create, save, fork, delete, run and cancel.
 *
 * YAML that does not parse or validate is saved as a draft (valid = false) with its errors, and a
 * run of it is refused with the first error. Runs go through the same run service as the CLI's
 * `--record` (server/pipelines/runs.ts), each in a directory of its own (run-dir.ts), on built-in
 * servers only (catalog.ts), with file parameters confined to that directory (parameters.ts).
 * Every run is a "pipeline.run" job (run-job.ts, its one finishing path): the in-process queue runs it
 * here, BullMQ (REDIS_URL) on a worker.
 */
import { createOutboundPolicy, type OutboundPolicy } from "../../net/outbound.ts";
import { randomUUID } from "node:crypto";
import { stringify } from "yaml";
import { z } from "zod";
import { requireRole, type Actor } from "../../auth/access.ts";
import type { Config } from "../../config.ts";
import { isUniqueViolation, type Db } from "../../db/client.ts";
import { conflict, invalid, notFound } from "../../errors.ts";
import type { EventBus } from "../../events/bus.ts";
import { createSecretBox } from "../../lib/secret-box.ts";
import type { Logger } from "../../logger.ts";
import { pipelineNameSchema, runDatasetSchema, type RunDataset } from "../../shared/pipelines.ts";
import { pipelineRoom, runRoom } from "../../shared/rooms.ts";
import type { DraftEndings } from "../../coedit/endings.ts";
import { errorsOf, formatDiagnostic } from "../dsl/errors.ts";
import { validatePipeline } from "../dsl/validate.ts";
import { aliasParameters } from "../dsl/params.ts";
import { parsePipeline } from "../dsl/parse.ts";
import { readSnapshots } from "../engine/cases.ts";
import { createRunService, type RunServiceDeps, type StartRunInput } from "../runs.ts";
import type { JobQueue } from "../../jobs/queue.ts";
import type { Signals } from "../../cluster/signals.ts";
import { CANCEL_RUN_SIGNAL, createRunJob } from "./run-job.ts";
import { CHAT_BUILTINS } from "../chat/history-server.ts";
import { builtinCatalog, builtinName } from "./catalog.ts";
import { chatRow, checkJsonLines } from "./datasets.ts";
import { lineDiff } from "./diff.ts";
import { galleryEntries, galleryEntry } from "./gallery.ts";
import { inspectPipeline, serverRegistry } from "./inspect.ts";
import { withKnowledgeBase } from "./kb-preset.ts";
import {
  assertPathsInside,
  blankSecrets,
  maskStored,
  parameterFileSchema,
  splitSecrets,
  withSecrets,
  type Secrets,
} from "./parameters.ts";
import { caseOf, evaluationTables } from "./results.ts";
import { compareMetrics, diffParameters } from "./run-compare.ts";
import { prepareRunDir, removeRunDir, runsRoot, sweepRunDirs, UPLOADED_DATASET, uploadedDataset } from "./run-dir.ts";

export const MAX_SOURCE = 256 * 1024;
/** Web runs running at once per workspace (the machine has few cores; runs are CPU-bound). */
export const MAX_RUNNING_PER_WORKSPACE = 2;

const uid = z.uuid("uid must be a UUID");
const source = z.string().max(MAX_SOURCE, "Keep the pipeline under 256 KB.");
const galleryKey = z.string().min(1).max(100);
const workspaceId = z.string().min(1);

export const validateInput = z.object({
  workspaceId,
  source,
  parameters: parameterFileSchema.optional(),
});
export const createInput = z.object({
  workspaceId,
  name: pipelineNameSchema,
  source,
  parameters: parameterFileSchema.optional(),
});
export const forkInput = z.object({
  workspaceId,
  key: galleryKey,
  name: pipelineNameSchema.optional(),
  /** Preset every retriever to read this knowledge base of the workspace (kb-preset.ts). */
  knowledgeBaseUid: uid.optional(),
});
export const saveInput = z.object({
  uid,
  source,
  parameters: parameterFileSchema.optional(),
  message: z.string().trim().max(500).optional(),
});
export const galleryInput = z.object({ workspaceId, key: galleryKey });
export const diffInput = z.object({ uid, from: z.number().int().min(1), to: z.number().int().min(1) });
const target = z.union([z.object({ uid }), z.object({ workspaceId, key: galleryKey })]);
export const startRunInput = z.object({ target, dataset: runDatasetSchema });
export const runsInput = z.object({
  workspaceId,
  pipelineUid: uid.optional(),
  galleryKey: galleryKey.optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export const runCaseInput = z.object({ uid, case: z.number().int().min(1).default(1) });
export const rerunInput = z.object({ uid });
export const compareRunsInput = z
  .object({ a: uid, b: uid })
  .refine((v) => v.a.toLowerCase() !== v.b.toLowerCase(), { message: "Pick two different runs to compare." });

type Needs = "none" | "llm" | "web" | "knowledge";

export interface RunView {
  uid: string;
  status: string;
  pipelineName: string;
  pipelineUid: string | null;
  pipelineVersion: number | null;
  galleryKey: string | null;
  dataset: RunDataset | { kind: "upload"; name: string; items: number } | null;
  params: unknown;
  error: string | null;
  answer: string | null;
  steps: number | null;
  createdAt: Date;
  finishedAt: Date | null;
  createdBy: string | null;
  /** The workspace model connection the run's model steps used ("<name> · <model>"). */
  modelConnection: string | null;
}

export function createPipelineService(deps: {
  db: Db;
  config: Config;
  events: EventBus;
  log: Logger;
  authSecret: string;
  /** The app's open search indexes: runs read their workspace's knowledge bases through them. */
  searchIndexes: RunServiceDeps["searchIndexes"];
  /** Web runs are "pipeline.run" jobs (run-job.ts): in this process, or on the workers (BullMQ). */
  queue: JobQueue;
  /** Given (several nodes), a cancel reaches the node running the run. */
  signals?: Signals;
  /** Told when a pipeline is deleted: its shared draft ends (server/coedit). */
  draftEndings?: Pick<DraftEndings, "emit">;
  /** Where runs' requests may go (server/net/outbound.ts); default from config. */
  outbound?: OutboundPolicy;
  /** The workspace's default model connection, for runs' model steps that name no model. */
  workspaceModel?: RunServiceDeps["workspaceModel"];
}) {
  const { db, config } = deps;
  const box = createSecretBox(deps.authSecret, "pipeline-parameters");
  const runs = createRunService({
    db,
    events: deps.events,
    log: deps.log,
    allowProcesses: config.pipelines.allowProcesses,
    outbound: deps.outbound ?? createOutboundPolicy({ allow: config.outbound.allow }),
    searchIndexes: deps.searchIndexes,
    ...(deps.workspaceModel ? { workspaceModel: deps.workspaceModel } : {}),
    // Chat follow-ups (server/pipelines/chat) read their conversation through this one; users' YAML
    // validates against the catalog, which does not know it.
    engine: { builtins: CHAT_BUILTINS },
  });
  const root = runsRoot(config.dataDir);
  const runJob = createRunJob({ db, events: deps.events, runs, box, log: deps.log, root, signals: deps.signals });

  const openSecrets = (sealed: string | null): Secrets => openSealed(box, sealed);
  const sealSecrets = (s: Secrets) => (Object.keys(s).length ? box.seal(JSON.stringify(s)) : null);

  async function loadPipeline(actor: Actor, pipelineUid: string, role: "viewer" | "member") {
    const row = await db.pipeline.findUnique({ where: { uid: pipelineUid } });
    if (!row) throw notFound(`No pipeline with id ${pipelineUid}. It may have been deleted.`);
    await requireRole(db, actor, row.workspaceId, role);
    return row;
  }

  function loadGallery(key: string) {
    const entry = galleryEntry(key);
    if (!entry) throw notFound(`The gallery has no pipeline "${key}".`);
    return entry;
  }

  const fileName = (name: string) => `${name}.yaml`;

  /** Front matter → the card fields (title falls back to the name). */
  async function metaOf(name: string, text: string, parameters: Record<string, unknown>) {
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

  async function lastRuns(workspace: string) {
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

  async function userNames(ids: (string | null)[]) {
    const wanted = [...new Set(ids.filter((x): x is string => Boolean(x)))];
    const users = wanted.length
      ? await db.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true } })
      : [];
    const names = new Map(users.map((u) => [u.id, u.name]));
    return (id: string | null) => (id ? (names.get(id) ?? null) : null);
  }

  function runView(
    r: Awaited<ReturnType<typeof db.pipelineRun.findUniqueOrThrow>>,
    pipelineUid: string | null,
    by: string | null,
  ): RunView {
    const outputs = r.outputs ? (JSON.parse(r.outputs) as { answer?: string | null; steps?: number }) : null;
    let dataset: RunView["dataset"] = null;
    if (r.dataset) dataset = JSON.parse(r.dataset) as RunView["dataset"];
    return {
      uid: r.uid,
      status: r.status,
      pipelineName: r.pipelineName,
      pipelineUid,
      pipelineVersion: r.pipelineVersion,
      galleryKey: r.galleryKey,
      dataset,
      params: blankSecrets(JSON.parse(r.params) as Record<string, unknown>),
      error: r.error,
      answer: outputs?.answer ?? null,
      steps: outputs?.steps ?? null,
      createdAt: r.createdAt,
      finishedAt: r.finishedAt,
      createdBy: by,
      modelConnection: r.modelConnection,
    };
  }

  async function loadRun(actor: Actor, runUid: string, role: "viewer" | "member") {
    const row = await db.pipelineRun.findUnique({
      where: { uid: runUid },
      include: { pipeline: { select: { uid: true } } },
    });
    // CLI runs belong to no workspace: nobody sees them in the app.
    if (!row || !row.workspaceId) throw notFound(`No pipeline run ${runUid}.`);
    await requireRole(db, actor, row.workspaceId, role);
    return row;
  }

  async function uniqueName(workspace: string, wanted: string) {
    const taken = new Set(
      (await db.pipeline.findMany({ where: { workspaceId: workspace }, select: { name: true } })).map((p) => p.name),
    );
    if (!taken.has(wanted)) return wanted;
    for (let n = 2; ; n++) if (!taken.has(`${wanted}_${n}`)) return `${wanted}_${n}`;
  }

  async function insert(
    actor: NonNullable<Actor>,
    data: {
      workspaceId: string;
      name: string;
      source: string;
      parameters: Record<string, unknown>;
      forkedFrom?: string;
    },
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
          secrets: sealSecrets(secrets),
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

  interface RunSpec {
    workspaceId: string;
    name: string;
    source: string;
    parameters: Record<string, unknown>;
    secrets: Secrets;
    record: { pipelineId: string; pipelineVersion: number } | { galleryKey: string };
  }

  /** A workspace pipeline's run spec at one of its versions (the pipeline row is its newest). */
  function workspaceSpec(
    pipeline: { id: string; workspaceId: string; name: string; secrets: string | null },
    at: { source: string; parameters: string; version: number },
  ): RunSpec {
    return {
      workspaceId: pipeline.workspaceId,
      name: pipeline.name,
      source: at.source,
      parameters: JSON.parse(at.parameters) as Record<string, unknown>,
      secrets: openSecrets(pipeline.secrets),
      record: { pipelineId: pipeline.id, pipelineVersion: at.version },
    };
  }

  /** What a run needs from a workspace pipeline or a gallery entry. */
  async function runSpec(actor: Actor, t: z.infer<typeof target>): Promise<RunSpec> {
    if ("uid" in t) {
      const row = await loadPipeline(actor, t.uid, "member");
      return workspaceSpec(row, row);
    }
    await requireRole(db, actor, t.workspaceId, "member");
    const entry = loadGallery(t.key);
    return {
      workspaceId: t.workspaceId,
      name: entry.key,
      source: entry.source,
      parameters: entry.parameters,
      secrets: {},
      record: { galleryKey: entry.key },
    };
  }

  /** A run with its evaluation tables and case count (read from its memory file). */
  async function runDetail(row: Awaited<ReturnType<typeof loadRun>>) {
    const name = await userNames([row.createdById]);
    let evaluation: ReturnType<typeof evaluationTables> = [];
    let cases = 0;
    if (row.memoryFile) {
      try {
        const snapshots = readSnapshots(row.memoryFile);
        evaluation = evaluationTables(snapshots);
        cases = caseOf(snapshots, 1).count;
      } catch (err) {
        deps.log.warn({ err, run: row.uid }, "a run's memory file could not be read");
      }
    }
    return { ...runView(row, row.pipeline?.uid ?? null, name(row.createdById)), evaluation, cases };
  }

  /** Starts a run of `spec` on `dataset` (refused while the workspace runs its maximum, or when invalid). */
  async function launch(actor: Actor, spec: RunSpec, data: RunDataset) {
    // Parsed and validated here, so a bad run is refused at once; the job validates it again.
    const catalog = await builtinCatalog();
    const parsed = parsePipeline(spec.source, { file: fileName(spec.name) });
    const pipeline = parsed.pipeline;
    const effective = pipeline ? aliasParameters(pipeline, catalog, spec.parameters) : {};
    const first = [
      ...parsed.diagnostics,
      ...(pipeline && !errorsOf(parsed.diagnostics).length
        ? validatePipeline(pipeline, { catalog, parameters: effective })
        : []),
    ].find((d) => d.severity === "error");
    if (first || !pipeline)
      throw invalid(`This pipeline is not valid, so it cannot run: ${first ? formatDiagnostic(first) : "it is empty"}`);
    assertPathsInside(effective);

    // The data set: the benchmark aliases read the sample as saved, or the given file instead.
    const files: Record<string, string> = {};
    const benchmarkAliases = pipeline.servers.filter((s) => builtinName(s.path) === "benchmark").map((s) => s.alias);
    let recorded: unknown = { kind: "sample" };
    if (data.kind !== "sample") {
      if (benchmarkAliases.length === 0)
        throw invalid("This pipeline reads no data set (it has no benchmark server): run it on its own sample.");
      const file = data.kind === "upload" ? UPLOADED_DATASET : "data/chat.jsonl";
      for (const alias of benchmarkAliases) {
        const bench = (effective[alias]?.benchmark ?? {}) as Record<string, unknown>;
        const keyMap = (bench.key_map ?? { q_ls: "question", gt_ls: "golden_answers" }) as Record<string, string>;
        if (data.kind === "upload") {
          const items = checkJsonLines(data.name, data.text, keyMap.q_ls ?? "question");
          files[file] = data.text;
          recorded = { kind: "upload", name: data.name, items };
        } else {
          files[file] = chatRow(data.question, keyMap);
          recorded = { kind: "chat", question: data.question };
        }
        effective[alias] = { ...effective[alias], benchmark: { ...bench, path: file, limit: -1 } };
      }
    }

    // Secrets reach the engine as overrides (whole top-level values), never the file on disk.
    const withKeys = withSecrets(effective, spec.secrets);
    const overrides: Record<string, Record<string, unknown>> = {};
    for (const [alias, section] of Object.entries(withKeys))
      for (const [key, value] of Object.entries(section ?? {}))
        if (JSON.stringify(value) !== JSON.stringify(effective[alias]?.[key])) (overrides[alias] ??= {})[key] = value;

    const runUid = randomUUID();
    const { dir, file } = prepareRunDir(root, runUid, {
      name: spec.name,
      source: spec.source,
      parameters: effective,
      files,
    });
    const run: StartRunInput = {
      uid: runUid,
      file,
      cwd: dir,
      demo: true,
      ...(Object.keys(overrides).length ? { overrides } : {}),
      workspaceId: spec.workspaceId,
      // A web-app run: the run service checks the actor's role, keeps memory in the database,
      // reads this workspace's knowledge bases only and applies the process policy.
      origin: "app",
      actor: actor!,
      ...spec.record,
      dataset: recorded,
      // Counted and recorded atomically by the run service (concurrent starts cannot both pass).
      maxRunning: MAX_RUNNING_PER_WORKSPACE,
    };
    // The run's row is written (its rights checked, the workspace's running runs counted) before the
    // job goes out; the job runs and finishes it (run-job.ts). The keys travel sealed, and the job
    // validates the pipeline again (a parsed tree does not travel).
    try {
      await runs.create(run);
    } catch (err) {
      removeRunDir(root, runUid);
      throw err;
    }
    await deps.queue.enqueue("pipeline.run", {
      uid: runUid,
      file,
      cwd: dir,
      demo: true,
      workspaceId: spec.workspaceId,
      userId: actor!.userId,
      ...(run.overrides ? { sealedOverrides: box.seal(JSON.stringify(run.overrides)) } : {}),
    });
    return { uid: runUid, room: runRoom(runUid) };
  }

  return {
    runs,
    /** The "pipeline.run" job, registered by the composition root (server/jobs/registry.ts). */
    runJob,
    /** What a run of a workspace pipeline or gallery entry needs (member of its workspace). */
    runSpec,

    async list(actor: Actor, workspace: string) {
      await requireRole(db, actor, workspace, "viewer");
      const [rows, last] = await Promise.all([
        db.pipeline.findMany({ where: { workspaceId: workspace }, orderBy: [{ updatedAt: "desc" }, { id: "desc" }] }),
        lastRuns(workspace),
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
    },

    async gallery(actor: Actor, input: z.infer<typeof galleryInput>) {
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
    },

    async get(actor: Actor, pipelineUid: string) {
      const row = await loadPipeline(actor, pipelineUid, "viewer");
      const parameters = JSON.parse(row.parameters) as Record<string, unknown>;
      const secrets = openSecrets(row.secrets);
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
    },

    async validate(actor: Actor, input: z.infer<typeof validateInput>) {
      await requireRole(db, actor, input.workspaceId, "viewer");
      return inspectPipeline(input.source, { file: "pipeline.yaml", parameters: input.parameters ?? {} });
    },

    async servers(actor: Actor, workspace: string) {
      await requireRole(db, actor, workspace, "viewer");
      return serverRegistry();
    },

    async create(actor: Actor, input: z.infer<typeof createInput>) {
      await requireRole(db, actor, input.workspaceId, "member");
      return insert(actor!, {
        workspaceId: input.workspaceId,
        name: input.name,
        source: input.source,
        parameters: input.parameters ?? {},
      });
    },

    async fork(actor: Actor, input: z.infer<typeof forkInput>) {
      await requireRole(db, actor, input.workspaceId, "member");
      const entry = loadGallery(input.key);
      let parameters = entry.parameters;
      if (input.knowledgeBaseUid) {
        const base = await db.knowledgeBase.findUnique({ where: { uid: input.knowledgeBaseUid } });
        if (!base || base.workspaceId !== input.workspaceId)
          throw notFound(`No knowledge base with id ${input.knowledgeBaseUid} in this workspace.`);
        parameters = withKnowledgeBase(entry, base.name);
      }
      const name = input.name ?? (await uniqueName(input.workspaceId, entry.key));
      return insert(actor!, {
        workspaceId: input.workspaceId,
        name,
        source: entry.source,
        parameters,
        forkedFrom: entry.key,
      });
    },

    /** What a shared draft starts from (server/coedit); the room protocol authorized the room already. */
    draft: (pipelineUid: string) => draftOf(db, openSecrets, pipelineUid),

    /**
     * A new version (a draft when the YAML has errors); the parameters sent replace the stored ones.
     * `editedBy`: who edited the shared draft since the last version (server/coedit).
     */
    async save(actor: Actor, input: z.infer<typeof saveInput>, opts: { editedBy?: string[] } = {}) {
      const row = await loadPipeline(actor, input.uid, "member");
      const split = input.parameters
        ? splitSecrets(input.parameters, openSecrets(row.secrets))
        : { parameters: JSON.parse(row.parameters) as Record<string, unknown>, secrets: openSecrets(row.secrets) };
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
            secrets: sealSecrets(split.secrets),
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
    },

    async remove(actor: Actor, pipelineUid: string) {
      const row = await loadPipeline(actor, pipelineUid, "member");
      const running = await db.pipelineRun.count({ where: { pipelineId: row.id, status: "running" } });
      if (running) throw conflict("This pipeline has a run in progress: cancel it or wait for it to finish first.");
      await db.pipeline.delete({ where: { id: row.id } });
      await deps.draftEndings?.emit(pipelineRoom(row.uid), "This pipeline was deleted; its shared draft is closed.");
      return { ok: true as const };
    },

    async versions(actor: Actor, pipelineUid: string) {
      const row = await loadPipeline(actor, pipelineUid, "viewer");
      const versions = await db.pipelineVersion.findMany({
        where: { pipelineId: row.id },
        orderBy: { version: "desc" },
        select: { version: true, valid: true, errors: true, message: true, createdAt: true, createdById: true },
      });
      const name = await userNames(versions.map((v) => v.createdById));
      return versions.map(({ createdById, ...v }) => ({ ...v, createdBy: name(createdById) }));
    },

    async diff(actor: Actor, input: z.infer<typeof diffInput>) {
      const row = await loadPipeline(actor, input.uid, "viewer");
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
    },

    async startRun(actor: Actor, input: z.infer<typeof startRunInput>) {
      return launch(actor, await runSpec(actor, input.target), input.dataset);
    },

    /**
     * The run again, as it ran: the pipeline version it used (a gallery pipeline as the gallery has
     * it now: the gallery keeps no versions), the parameters it kept (API keys as saved now) and the
     * data it ran on (an upload is read back from the run's folder).
     */
    async rerun(actor: Actor, runUid: string) {
      const row = await loadRun(actor, runUid, "member");
      let spec: RunSpec;
      if (row.pipelineId) {
        const pipeline = await db.pipeline.findUniqueOrThrow({ where: { id: row.pipelineId } });
        const wanted = row.pipelineVersion ?? pipeline.version;
        const version = await db.pipelineVersion.findFirst({ where: { pipelineId: row.pipelineId, version: wanted } });
        if (!version) throw conflict(`Version ${wanted} of ${pipeline.name} is gone: this run cannot be repeated.`);
        spec = workspaceSpec(pipeline, version);
      } else if (row.galleryKey) {
        const entry = loadGallery(row.galleryKey);
        spec = {
          workspaceId: row.workspaceId!,
          name: entry.key,
          source: entry.source,
          parameters: entry.parameters,
          secrets: {},
          record: { galleryKey: entry.key },
        };
      } else throw conflict("The pipeline of this run was deleted: there is nothing to run again.");
      // The parameters it ran with (the effective ones, API keys blanked), unless it ended before it had any.
      const kept = JSON.parse(row.params) as Record<string, unknown>;
      if (Object.keys(kept).length) spec.parameters = kept;
      const stored = (row.dataset ? JSON.parse(row.dataset) : { kind: "sample" }) as NonNullable<RunView["dataset"]>;
      let dataset: RunDataset;
      if (stored.kind === "upload") {
        const text = uploadedDataset(root, row.uid);
        if (text === null)
          throw conflict(
            `The uploaded data set of that run (${stored.name}) is gone: start a new run and upload it again.`,
          );
        dataset = { kind: "upload", name: stored.name, text };
      } else dataset = stored.kind === "chat" ? { kind: "chat", question: stored.question } : { kind: "sample" };
      return launch(actor, spec, dataset);
    },

    /** Two runs of one workspace side by side: their metrics, what differs in their parameters. */
    async compareRuns(actor: Actor, input: z.infer<typeof compareRunsInput>) {
      const [ra, rb] = [await loadRun(actor, input.a, "viewer"), await loadRun(actor, input.b, "viewer")];
      if (ra.workspaceId !== rb.workspaceId) throw notFound(`No pipeline run ${input.b} in this workspace.`);
      const [a, b] = [await runDetail(ra), await runDetail(rb)];
      return {
        a,
        b,
        metrics: compareMetrics(a.evaluation, b.evaluation),
        parameters: diffParameters(a.params, b.params),
        samePipeline: (a.pipelineUid ?? a.galleryKey) === (b.pipelineUid ?? b.galleryKey),
      };
    },

    async cancelRun(actor: Actor, runUid: string) {
      const row = await loadRun(actor, runUid, "member");
      if (row.status !== "running") throw conflict(`This run is ${row.status}: only a running run can be cancelled.`);
      if (!runs.cancel(row.uid)) {
        // Not running in this process: on a worker (a shared queue: it is told to stop), or not any
        // more (a restart). Marked so it stops showing as running.
        if (deps.signals) await deps.signals.publish(CANCEL_RUN_SIGNAL, { uid: row.uid });
        await db.pipelineRun.update({
          where: { uid: row.uid },
          data: { status: "cancelled", error: "Cancelled.", finishedAt: new Date() },
        });
      }
      return { ok: true as const };
    },

    async listRuns(actor: Actor, input: z.infer<typeof runsInput>) {
      await requireRole(db, actor, input.workspaceId, "viewer");
      let pipelineId: string | undefined;
      if (input.pipelineUid) {
        const p = await db.pipeline.findUnique({
          where: { uid: input.pipelineUid },
          select: { id: true, workspaceId: true },
        });
        if (!p || p.workspaceId !== input.workspaceId) throw notFound(`No pipeline with id ${input.pipelineUid}.`);
        pipelineId = p.id;
      }
      const rows = await db.pipelineRun.findMany({
        where: {
          workspaceId: input.workspaceId,
          ...(pipelineId ? { pipelineId } : {}),
          ...(input.galleryKey ? { galleryKey: input.galleryKey } : {}),
        },
        include: { pipeline: { select: { uid: true } } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: input.limit,
      });
      const name = await userNames(rows.map((r) => r.createdById));
      return rows.map((r) => runView(r, r.pipeline?.uid ?? null, name(r.createdById)));
    },

    async getRun(actor: Actor, runUid: string) {
      return runDetail(await loadRun(actor, runUid, "viewer"));
    },

    /** Case n of a finished run; none (with the reason) while it runs or when it wrote no memory file. */
    async runCase(actor: Actor, input: z.infer<typeof runCaseInput>) {
      const row = await loadRun(actor, input.uid, "viewer");
      const none = (why: string) => ({ count: 0, index: 0, steps: [], missing: why });
      if (!row.memoryFile)
        return none(
          row.status === "running" ? "The cases appear when the run has finished." : "This run wrote no memory file.",
        );
      try {
        return { ...caseOf(readSnapshots(row.memoryFile), input.case), missing: null };
      } catch {
        return none("This run's memory file is gone (its folder was removed).");
      }
    },

    /** Shutdown: runs started from the web are finished or stopped, and their ends recorded (runs.ts). */
    shutdown: (graceMs?: number) => runs.shutdown(graceMs),

    /** Runs cut off by the last shutdown: they cannot resume, so they are marked failed, and the
     * folders they left are removed. */
    async recoverInterrupted(): Promise<number> {
      const where = { status: "running", workspaceId: { not: null } };
      // Folders of runs that ended with the last process (none runs here yet); the memory files stay.
      sweepRunDirs(root, new Set(runs.runningUids()));
      // Read first: an UPDATE takes SQLite's write lock even when nothing matches (see ask's sweep).
      if (!(await db.pipelineRun.findFirst({ where, select: { id: true } }))) return 0;
      const r = await db.pipelineRun.updateMany({
        where,
        data: {
          status: "failed",
          error: "Interrupted: Argus restarted while the run was in progress.",
          finishedAt: new Date(),
        },
      });
      return r.count;
    },
  };
}

export type PipelineService = ReturnType<typeof createPipelineService>;

function openSealed(box: ReturnType<typeof createSecretBox>, sealed: string | null): Secrets {
  if (!sealed) return {};
  try {
    return JSON.parse(box.open(sealed)) as Secrets;
  } catch {
    return {}; // AUTH_SECRET changed: the keys must be entered again (the form shows them unset).
  }
}

/** The saved YAML and parameters of a pipeline, its stored secrets masked (a shared draft's start). */
async function draftOf(db: Db, openSecrets: (sealed: string | null) => Secrets, pipelineUid: string) {
  const row = await db.pipeline.findUnique({ where: { uid: pipelineUid } });
  if (!row) throw notFound(`No pipeline with id ${pipelineUid}. It may have been deleted.`);
  const parameters = JSON.parse(row.parameters) as Record<string, unknown>;
  return { source: row.source, parameters: maskStored(parameters, openSecrets(row.secrets)) };
}
