/**
 * A run's `pipeline_run` row: written when it starts (counted and created under the workspace's lock
 * when running runs are capped), read back as a RunRecord, and the result summary kept when it ends.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import type { Db } from "../db/client.ts";
import { conflict } from "../errors.ts";
import { lockWorkspace } from "../workspaces/lock.ts";
import type { RunResult } from "./engine/run.ts";
import { summarizeStep } from "./engine/summary.ts";
import type { StartRunInput } from "./run-input.ts";

export type RunStatus = "running" | "completed" | "failed" | "cancelled";

export interface RunRecord {
  uid: string;
  status: RunStatus;
  pipelineName: string;
  pipelinePath: string;
  pipelineHash: string;
  params: unknown;
  outputs: unknown;
  error: string | null;
  memoryFile: string | null;
  /** The workspace model connection the run's model steps used ("<name> · <model>"). */
  modelConnection: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

type Row = Awaited<ReturnType<Db["pipelineRun"]["findUniqueOrThrow"]>>;

export const toRecord = (r: Row): RunRecord => ({
  uid: r.uid,
  status: r.status as RunStatus,
  pipelineName: r.pipelineName,
  pipelinePath: r.pipelinePath,
  pipelineHash: r.pipelineHash,
  params: JSON.parse(r.params) as unknown,
  outputs: r.outputs === null ? null : (JSON.parse(r.outputs) as unknown),
  error: r.error,
  memoryFile: r.memoryFile,
  modelConnection: r.modelConnection,
  createdAt: r.createdAt,
  finishedAt: r.finishedAt,
});

/** The result summary stored with a completed run. */
export function outputsOf(r: RunResult) {
  const last = r.snapshots[r.snapshots.length - 1];
  const tool = last?.step.split(".")[1] ?? "";
  return {
    steps: r.snapshots.length,
    lastStep: last?.step ?? null,
    summary: r.result ? summarizeStep(tool, r.result, last?.step.startsWith("prompt.") ?? false) : null,
    answer: r.answer,
  };
}

/** The run's row; with `maxRunning`, counted and created under the workspace's lock. */
async function createRow(db: Db, input: StartRunInput, data: Parameters<Db["pipelineRun"]["create"]>[0]["data"]) {
  const { maxRunning, workspaceId } = input;
  if (maxRunning === undefined || !workspaceId) return db.pipelineRun.create({ data });
  return db.$transaction(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const running = await tx.pipelineRun.count({ where: { workspaceId, status: "running" } });
    if (running >= maxRunning)
      throw conflict(
        `${running} runs are already running in this workspace; wait for one to finish or cancel it, then start again.`,
      );
    return tx.pipelineRun.create({ data });
  });
}

/** The run's row (status running); returns its uid. */
export async function insertRun(db: Db, input: StartRunInput, createdById: string | undefined): Promise<string> {
  const uid = input.uid ?? randomUUID();
  await createRow(db, input, {
    uid,
    pipelineName: path.basename(input.file).replace(/\.[^.]*$/, ""),
    pipelinePath: input.file,
    pipelineHash: "",
    params: "{}",
    ...(input.workspaceId ? { workspaceId: input.workspaceId } : {}),
    ...(createdById ? { createdById } : {}),
    ...(input.pipelineId ? { pipelineId: input.pipelineId, pipelineVersion: input.pipelineVersion ?? null } : {}),
    ...(input.galleryKey ? { galleryKey: input.galleryKey } : {}),
    ...(input.dataset !== undefined ? { dataset: JSON.stringify(input.dataset) } : {}),
  });
  return uid;
}
