/** Re-running a past run as it ran, and comparing two runs, over tRPC against the real server. */
import { rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runsRoot } from "../../pipelines/workspace/run-dir.ts";
import { signUpInNewWorkspace } from "../../../test/helpers/server.ts";
import { startServerWithTeam } from "./test-support.ts";

const { server, owner, member, viewer } = await startServerWithTeam();
const ws = owner.workspaceId;

interface Run {
  uid: string;
  status: string;
  params: Record<string, Record<string, unknown>>;
  pipelineVersion: number | null;
  pipelineUid: string | null;
  galleryKey: string | null;
  dataset: { kind: string; name?: string; items?: number; question?: string } | null;
  evaluation: { step: string; rows: { metric: string; mean: number | null }[] }[];
}
interface Comparison {
  a: Run;
  b: Run;
  metrics: { step: string; metric: string; a: number | null; b: number | null; delta: number | null }[];
  parameters: { path: string; change: string; a: string | null; b: string | null }[];
  samePipeline: boolean;
}

async function finished(uid: string): Promise<Run> {
  for (let i = 0; i < 200; i++) {
    const run = await member.client.ok<Run>("query", "pipelines.run", { uid });
    if (run.status !== "running") return run;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${uid} did not finish`);
}

const UPLOAD = {
  kind: "upload",
  name: "capitals.jsonl",
  text: '{"question": "Where is the Eiffel Tower?", "golden_answers": ["Paris"]}\n{"question": "Where is Big Ben?", "golden_answers": ["London"]}\n',
};

describe("re-running a run", () => {
  let pipelineUid: string;
  let first: Run;

  it("runs the version and parameters it ran with, on the same uploaded data, after the pipeline changed", async () => {
    pipelineUid = (
      await member.client.ok<{ uid: string }>("mutate", "pipelines.fork", { workspaceId: ws, key: "bm25_search" })
    ).uid;
    const started = await member.client.ok<{ uid: string }>("mutate", "pipelines.startRun", {
      target: { uid: pipelineUid },
      dataset: UPLOAD,
    });
    first = await finished(started.uid);
    expect(first).toMatchObject({ status: "completed", pipelineVersion: 1 });
    const topK = first.params.retriever!.top_k;

    // Version 2 retrieves more passages.
    const p = await member.client.ok<{ source: string; parameters: Record<string, Record<string, unknown>> }>(
      "query",
      "pipelines.get",
      { uid: pipelineUid },
    );
    const parameters = structuredClone(p.parameters);
    parameters.retriever!.top_k = Number(topK) + 4;
    await member.client.ok("mutate", "pipelines.save", { uid: pipelineUid, source: p.source, parameters });

    expect((await viewer.client.mutate("pipelines.rerun", { uid: first.uid })).status).toBe(403);
    const again = await member.client.ok<{ uid: string; room: string }>("mutate", "pipelines.rerun", {
      uid: first.uid,
    });
    expect(again.uid).not.toBe(first.uid);
    const rerun = await finished(again.uid);
    expect(rerun).toMatchObject({
      status: "completed",
      pipelineUid,
      pipelineVersion: 1,
      dataset: { kind: "upload", name: "capitals.jsonl", items: 2 },
    });
    expect(rerun.params.retriever!.top_k).toBe(topK);
  });

  it("compares two runs: parameter changes and the metrics side by side", async () => {
    const v2 = await finished(
      (
        await member.client.ok<{ uid: string }>("mutate", "pipelines.startRun", {
          target: { uid: pipelineUid },
          dataset: { kind: "sample" },
        })
      ).uid,
    );
    expect(v2.pipelineVersion).toBe(2);
    const c = await viewer.client.ok<Comparison>("query", "pipelines.compareRuns", { a: first.uid, b: v2.uid });
    expect(c.a.uid).toBe(first.uid);
    expect(c.b.uid).toBe(v2.uid);
    expect(c.samePipeline).toBe(true);
    const topK = first.params.retriever!.top_k as number;
    expect(c.parameters).toContainEqual({
      path: "retriever.top_k",
      change: "changed",
      a: JSON.stringify(topK),
      b: JSON.stringify(topK + 4),
    });
    // Only what differs is listed.
    expect(c.parameters.every((row) => row.a !== row.b)).toBe(true);

    const self = await viewer.client.query("pipelines.compareRuns", { a: first.uid, b: first.uid });
    expect(self.status).toBe(400);
    expect(self.error?.message).toContain("Pick two different runs to compare.");
  });

  it("re-runs a gallery run and lines up both runs' evaluation metrics", async () => {
    const a = await finished(
      (
        await member.client.ok<{ uid: string }>("mutate", "pipelines.startRun", {
          target: { workspaceId: ws, key: "eval_trec" },
          dataset: { kind: "sample" },
        })
      ).uid,
    );
    const b = await finished(
      (await member.client.ok<{ uid: string }>("mutate", "pipelines.rerun", { uid: a.uid })).uid,
    );
    expect(b).toMatchObject({ status: "completed", galleryKey: "eval_trec", pipelineVersion: null });
    const c = await viewer.client.ok<Comparison>("query", "pipelines.compareRuns", { a: a.uid, b: b.uid });
    expect(c.parameters).toEqual([]);
    expect(c.metrics).toContainEqual({ step: "evaluation.evaluate_trec", metric: "mrr", a: 1, b: 1, delta: 0 });
  });

  it("says why a run cannot be repeated: its upload is gone", async () => {
    // Its folder went when it ended; the data set kept for a re-run goes too.
    rmSync(path.join(runsRoot(server.db.config.dataDir), first.uid), { recursive: true, force: true });
    rmSync(path.join(runsRoot(server.db.config.dataDir), "memory", `${first.uid}.uploaded.jsonl`), { force: true });
    const r = await member.client.mutate("pipelines.rerun", { uid: first.uid });
    expect(r.status).toBe(409);
    expect(r.error?.message).toBe(
      "The uploaded data set of that run (capitals.jsonl) is gone: start a new run and upload it again.",
    );
  });

  it("keeps strangers out of both", async () => {
    const stranger = await signUpInNewWorkspace(server);
    expect((await stranger.client.mutate("pipelines.rerun", { uid: first.uid })).status).toBe(403);
    expect((await stranger.client.query("pipelines.compareRuns", { a: first.uid, b: first.uid })).status).toBe(400);
    const other = await stranger.client.query("pipelines.compareRuns", {
      a: first.uid,
      b: "00000000-0000-4000-8000-000000000000",
    });
    expect(other.status).toBe(403);
  });
});
