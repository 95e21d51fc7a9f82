/**
 * Web runs as the pages show them: a workspace's runs (of one pipeline or gallery entry), one run with
 * its evaluation tables and case count (read from its memory file), one case, two runs compared.
 * Viewers may read all of it; CLI runs belong to no workspace and are never shown.
 */
import type { z } from "zod";
import { requireRole, type Actor } from "../../auth/access.ts";
import { notFound } from "../../errors.ts";
import type { RunDataset } from "../../shared/pipelines.ts";
import { readSnapshots } from "../engine/cases.ts";
import type { compareRunsInput, runCaseInput, runsInput } from "./inputs.ts";
import { blankSecrets } from "./parameters.ts";
import { caseOf, evaluationTables } from "./results.ts";
import { compareMetrics, diffParameters } from "./run-compare.ts";
import { type LoadedRun, loadRun, type PipelineDeps, userNames } from "./rows.ts";

/** The data set a run recorded (an upload by its name and size: its text stays in the run's folder). */
export type StoredDataset = RunDataset | { kind: "upload"; name: string; items: number };

export interface RunView {
  uid: string;
  status: string;
  pipelineName: string;
  pipelineUid: string | null;
  pipelineVersion: number | null;
  galleryKey: string | null;
  dataset: StoredDataset | null;
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

type RunRow = Omit<LoadedRun, "pipeline">;

function runView(r: RunRow, pipelineUid: string | null, by: string | null): RunView {
  const outputs = r.outputs ? (JSON.parse(r.outputs) as { answer?: string | null; steps?: number }) : null;
  return {
    uid: r.uid,
    status: r.status,
    pipelineName: r.pipelineName,
    pipelineUid,
    pipelineVersion: r.pipelineVersion,
    galleryKey: r.galleryKey,
    dataset: r.dataset ? (JSON.parse(r.dataset) as StoredDataset) : null,
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

/** A run with its evaluation tables and case count (read from its memory file). */
async function runDetail(d: PipelineDeps, row: LoadedRun) {
  const name = await userNames(d.db, [row.createdById]);
  let evaluation: ReturnType<typeof evaluationTables> = [];
  let cases = 0;
  if (row.memoryFile) {
    try {
      const snapshots = readSnapshots(row.memoryFile);
      evaluation = evaluationTables(snapshots);
      cases = caseOf(snapshots, 1).count;
    } catch (err) {
      d.log.warn({ err, run: row.uid }, "a run's memory file could not be read");
    }
  }
  return { ...runView(row, row.pipeline?.uid ?? null, name(row.createdById)), evaluation, cases };
}

export async function getRun(d: PipelineDeps, actor: Actor, runUid: string) {
  return runDetail(d, await loadRun(d.db, actor, runUid, "viewer"));
}

export async function listRuns({ db }: PipelineDeps, actor: Actor, input: z.infer<typeof runsInput>) {
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
  const name = await userNames(
    db,
    rows.map((r) => r.createdById),
  );
  return rows.map((r) => runView(r, r.pipeline?.uid ?? null, name(r.createdById)));
}

/** Case n of a finished run; none (with the reason) while it runs or when it wrote no memory file. */
export async function runCase({ db }: PipelineDeps, actor: Actor, input: z.infer<typeof runCaseInput>) {
  const row = await loadRun(db, actor, input.uid, "viewer");
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
}

/** Two runs of one workspace side by side: their metrics, what differs in their parameters. */
export async function compareRuns(d: PipelineDeps, actor: Actor, input: z.infer<typeof compareRunsInput>) {
  const [ra, rb] = [await loadRun(d.db, actor, input.a, "viewer"), await loadRun(d.db, actor, input.b, "viewer")];
  if (ra.workspaceId !== rb.workspaceId) throw notFound(`No pipeline run ${input.b} in this workspace.`);
  const [a, b] = [await runDetail(d, ra), await runDetail(d, rb)];
  return {
    a,
    b,
    metrics: compareMetrics(a.evaluation, b.evaluation),
    parameters: diffParameters(a.params, b.params),
    samePipeline: (a.pipelineUid ?? a.galleryKey) === (b.pipelineUid ?? b.galleryKey),
  };
}
