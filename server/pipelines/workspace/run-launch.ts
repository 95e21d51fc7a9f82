/**
 * Starting web runs: what a run needs from a workspace pipeline (at a version) or a gallery entry,
 * the pipeline checked before anything is written (a bad run is refused at once), the data set
 * (sample, an upload, a chat question) placed in the run's own folder, API keys as sealed overrides,
 * then the run's row and its "pipeline.run" job (run-job.ts finishes it). Also a run again, as it ran.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { requireRole, type Actor } from "../../auth/access.ts";
import { conflict, invalid } from "../../errors.ts";
import type { RunDataset } from "../../shared/pipelines.ts";
import { runRoom } from "../../shared/rooms.ts";
import { errorsOf, formatDiagnostic } from "../dsl/errors.ts";
import { aliasParameters } from "../dsl/params.ts";
import { parsePipeline } from "../dsl/parse.ts";
import { validatePipeline } from "../dsl/validate.ts";
import type { StartRunInput } from "../runs.ts";
import { builtinCatalog, builtinName } from "./catalog.ts";
import { chatRow, checkJsonLines } from "./datasets.ts";
import type { runTarget } from "./inputs.ts";
import { assertPathsInside, type Secrets, withSecrets } from "./parameters.ts";
import { fileName, loadGallery, loadPipeline, loadRun, openSecrets, type PipelineDeps } from "./rows.ts";
import type { StoredDataset } from "./run-views.ts";
import { prepareRunDir, removeRunDir, UPLOADED_DATASET, uploadedDataset } from "./run-dir.ts";

/** Web runs running at once per workspace (the machine has few cores; runs are CPU-bound). */
export const MAX_RUNNING_PER_WORKSPACE = 2;

export interface RunSpec {
  workspaceId: string;
  name: string;
  source: string;
  parameters: Record<string, unknown>;
  secrets: Secrets;
  record: { pipelineId: string; pipelineVersion: number } | { galleryKey: string };
}

/** A workspace pipeline's run spec at one of its versions (the pipeline row is its newest). */
function workspaceSpec(
  box: PipelineDeps["box"],
  pipeline: { id: string; workspaceId: string; name: string; secrets: string | null },
  at: { source: string; parameters: string; version: number },
): RunSpec {
  return {
    workspaceId: pipeline.workspaceId,
    name: pipeline.name,
    source: at.source,
    parameters: JSON.parse(at.parameters) as Record<string, unknown>,
    secrets: openSecrets(box, pipeline.secrets),
    record: { pipelineId: pipeline.id, pipelineVersion: at.version },
  };
}

/** A gallery entry's run spec (the gallery keeps no versions and no keys). */
function gallerySpec(workspaceId: string, key: string): RunSpec {
  const entry = loadGallery(key);
  return {
    workspaceId,
    name: entry.key,
    source: entry.source,
    parameters: entry.parameters,
    secrets: {},
    record: { galleryKey: entry.key },
  };
}

/** What a run needs from a workspace pipeline or a gallery entry (member of its workspace). */
export async function runSpec(d: PipelineDeps, actor: Actor, t: z.infer<typeof runTarget>): Promise<RunSpec> {
  if ("uid" in t) {
    const row = await loadPipeline(d.db, actor, t.uid, "member");
    return workspaceSpec(d.box, row, row);
  }
  await requireRole(d.db, actor, t.workspaceId, "member");
  return gallerySpec(t.workspaceId, t.key);
}

/** Starts a run of `spec` on `dataset` (refused while the workspace runs its maximum, or when invalid). */
export async function launch(d: PipelineDeps, actor: Actor, spec: RunSpec, data: RunDataset) {
  const { pipeline, effective } = await checkedPipeline(spec);
  const { files, recorded } = placeDataset(pipeline, effective, data);

  // Secrets reach the engine as overrides (whole top-level values), never the file on disk.
  const withKeys = withSecrets(effective, spec.secrets);
  const overrides: Record<string, Record<string, unknown>> = {};
  for (const [alias, section] of Object.entries(withKeys))
    for (const [key, value] of Object.entries(section ?? {}))
      if (JSON.stringify(value) !== JSON.stringify(effective[alias]?.[key])) (overrides[alias] ??= {})[key] = value;

  const runUid = randomUUID();
  const { dir, file } = prepareRunDir(d.root, runUid, {
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
    await d.runs.create(run);
  } catch (err) {
    removeRunDir(d.root, runUid);
    throw err;
  }
  await d.queue.enqueue("pipeline.run", {
    uid: runUid,
    file,
    cwd: dir,
    demo: true,
    workspaceId: spec.workspaceId,
    userId: actor!.userId,
    ...(run.overrides ? { sealedOverrides: d.box.seal(JSON.stringify(run.overrides)) } : {}),
  });
  return { uid: runUid, room: runRoom(runUid) };
}

/** Parsed and validated here, so a bad run is refused at once (the job validates it again). */
async function checkedPipeline(spec: RunSpec) {
  const catalog = await builtinCatalog();
  const parsed = parsePipeline(spec.source, { file: fileName(spec.name) });
  const pipeline = parsed.pipeline;
  const effective = pipeline ? aliasParameters(pipeline, catalog, spec.parameters) : {};
  const first = [
    ...parsed.diagnostics,
    ...(pipeline && !errorsOf(parsed.diagnostics).length
      ? validatePipeline(pipeline, { catalog, parameters: effective })
      : []),
  ].find((x) => x.severity === "error");
  if (first || !pipeline)
    throw invalid(`This pipeline is not valid, so it cannot run: ${first ? formatDiagnostic(first) : "it is empty"}`);
  assertPathsInside(effective);
  return { pipeline, effective };
}

type Checked = Awaited<ReturnType<typeof checkedPipeline>>;

/** The data set: the benchmark aliases read the sample as saved, or the given file instead. */
function placeDataset(pipeline: Checked["pipeline"], effective: Checked["effective"], data: RunDataset) {
  const files: Record<string, string> = {};
  const benchmarkAliases = pipeline.servers.filter((s) => builtinName(s.path) === "benchmark").map((s) => s.alias);
  let recorded: unknown = { kind: "sample" };
  if (data.kind === "sample") return { files, recorded };
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
  return { files, recorded };
}

/**
 * The run again, as it ran: the pipeline version it used (a gallery pipeline as the gallery has
 * it now: the gallery keeps no versions), the parameters it kept (API keys as saved now) and the
 * data it ran on (an upload is read back from the run's folder).
 */
export async function rerun(d: PipelineDeps, actor: Actor, runUid: string) {
  const row = await loadRun(d.db, actor, runUid, "member");
  let spec: RunSpec;
  if (row.pipelineId) {
    const pipeline = await d.db.pipeline.findUniqueOrThrow({ where: { id: row.pipelineId } });
    const wanted = row.pipelineVersion ?? pipeline.version;
    const version = await d.db.pipelineVersion.findFirst({ where: { pipelineId: row.pipelineId, version: wanted } });
    if (!version) throw conflict(`Version ${wanted} of ${pipeline.name} is gone: this run cannot be repeated.`);
    spec = workspaceSpec(d.box, pipeline, version);
  } else if (row.galleryKey) spec = gallerySpec(row.workspaceId!, row.galleryKey);
  else throw conflict("The pipeline of this run was deleted: there is nothing to run again.");
  // The parameters it ran with (the effective ones, API keys blanked), unless it ended before it had any.
  const kept = JSON.parse(row.params) as Record<string, unknown>;
  if (Object.keys(kept).length) spec.parameters = kept;
  const stored = (row.dataset ? JSON.parse(row.dataset) : { kind: "sample" }) as StoredDataset;
  let dataset: RunDataset;
  if (stored.kind === "upload") {
    const text = uploadedDataset(d.root, row.uid);
    if (text === null)
      throw conflict(
        `The uploaded data set of that run (${stored.name}) is gone: start a new run and upload it again.`,
      );
    dataset = { kind: "upload", name: stored.name, text };
  } else dataset = stored.kind === "chat" ? { kind: "chat", question: stored.question } : { kind: "sample" };
  return launch(d, actor, spec, dataset);
}
