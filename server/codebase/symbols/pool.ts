/**
 * Runs file passes over a list, on the main thread and on worker threads at once, all pulling from one
 * queue. The main thread starts at once; workers join as they come up (booting one costs ~0.4 s here:
 * it must register the TypeScript loader), so a small project finishes before they would help and a
 * large one gets every core. A worker that dies takes only its in-flight batch with it: those files
 * are recorded as errors, never retried on the main thread (whatever killed the worker would kill us).
 */
import type { Worker } from "node:worker_threads";
import { startTsWorker } from "../analysis/ts-worker.ts";
import { emptyFileSymbols, runFilePass, type PassInput, type PassOptions, type PassResult } from "./pass.ts";
import type { FromWorker, ToWorker } from "./worker.ts";

export interface PoolOptions {
  workers: number;
  /** Whether the main thread takes files too (default true). A server that must keep its event loop
   * free passes false with workers ≥ 1. */
  mainThread?: boolean;
  pass: PassOptions;
  onResult: (result: PassResult) => void;
  /** Heap cap of each worker: a pathological file must not take the server's memory. */
  workerHeapMb?: number;
  signal?: AbortSignal;
}

export interface PoolReport {
  workersStarted: number;
  workersFailed: string[];
  filesInWorkers: number;
}

const BATCH_FILES = 8;
const BATCH_BYTES = 512 * 1024;

export async function runPool(
  files: PassInput[],
  sizes: Map<string, number>,
  options: PoolOptions,
): Promise<PoolReport> {
  let next = 0;
  let done = 0;
  const report: PoolReport = { workersStarted: 0, workersFailed: [], filesInWorkers: 0 };
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const deliver = (result: PassResult) => {
    options.onResult(result);
    if (++done === files.length) finish();
  };
  if (files.length === 0) return report;

  const takeBatch = (): PassInput[] => {
    const batch: PassInput[] = [];
    let bytes = 0;
    while (next < files.length && batch.length < BATCH_FILES && (batch.length === 0 || bytes < BATCH_BYTES)) {
      const file = files[next++]!;
      bytes += sizes.get(file.path) ?? 0;
      batch.push(file);
    }
    return batch;
  };

  // The main thread works the same queue, one file at a time, yielding to the event loop in between.
  // It also takes over if every worker is gone.
  let draining: Promise<void> | null = null;
  const drainOnMain = () => {
    draining ??= (async () => {
      while (next < files.length && !options.signal?.aborted) {
        const file = files[next++]!;
        deliver(await runFilePass(file, options.pass));
        // The pass never waits on I/O: yield so worker messages (and a server's requests) get a turn.
        if (options.workers > 0 || next % 16 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    })();
    return draining;
  };
  let alive = options.workers;

  const workers: Worker[] = [];
  for (let i = 0; i < options.workers; i++) {
    let inFlight: PassInput[] = [];
    let failed = false;
    const worker = startTsWorker(new URL("./worker.ts", import.meta.url), options.pass, {
      maxOldGenerationSizeMb: options.workerHeapMb ?? 1536,
    });
    workers.push(worker);
    const fail = (why: string) => {
      if (failed) return;
      failed = true;
      report.workersFailed.push(why.split("\n")[0]!.slice(0, 300));
      for (const file of inFlight)
        deliver({
          file: {
            path: file.path,
            language: file.language,
            status: "error",
            note: `worker failed while processing: ${why.split("\n")[0]!.slice(0, 200)}`,
            lines: 0,
            bytes: sizes.get(file.path) ?? 0,
            parseErrors: false,
            definitions: [],
            references: [],
            imports: [],
          },
          findings: [],
        });
      inFlight = [];
      void worker.terminate();
    };
    const feed = () => {
      inFlight = options.signal?.aborted ? [] : takeBatch();
      if (inFlight.length) worker.postMessage({ type: "batch", files: inFlight } satisfies ToWorker);
      else void worker.terminate();
    };
    worker.on("message", (message: FromWorker) => {
      if (message.type === "ready") {
        report.workersStarted++;
        feed();
      } else if (message.type === "results") {
        inFlight = [];
        report.filesInWorkers += message.results.length;
        for (const result of message.results) deliver(result);
        feed();
      } else fail(message.message);
    });
    worker.on("error", (err) => fail(err instanceof Error ? err.message : String(err)));
    worker.on("exit", (code) => {
      if (inFlight.length) fail(`worker exited with code ${code}`);
      if (--alive === 0 && next < files.length) void drainOnMain();
    });
  }

  if (options.mainThread !== false || options.workers === 0) await drainOnMain();
  if (options.signal?.aborted) {
    await Promise.all(workers.map((w) => w.terminate()));
    // Files never started: report them so the caller's counts add up.
    while (next < files.length) {
      deliver({ file: emptyFileSymbols(files[next++]!, "skipped", "cancelled"), findings: [] });
    }
  }
  await finished;
  await Promise.all(workers.map((w) => w.terminate()));
  return report;
}
