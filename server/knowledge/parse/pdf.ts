/**
 * PDF → text, in a worker thread. pdfjs-dist's legacy build (the one that runs on Node 20) carries
 * core-js polyfills that replace globals when it loads — JSON.stringify among them, with a wrapper
 * that calls back into JavaScript for every key. Loaded in the server's own thread it made every
 * tRPC answer and room event slower (prompts.list over HTTP: 16 → 34 ms p50 once knowledge bases
 * imported it). So pdfjs only ever loads in this worker: one kept while PDFs arrive, closed when idle,
 * restarted if it dies (a hostile file that exhausts its heap fails that file only).
 */
import type { Worker } from "node:worker_threads";
import { startTsWorker } from "../../codebase/analysis/ts-worker.ts";
import { ParseRefusal, type RefusalReason } from "./types.ts";

export interface PdfRequest {
  id: number;
  bytes: Uint8Array;
  name: string;
}
export type PdfReply =
  | { id: number; ok: true; text: string; title: string | null }
  | { id: number; ok: false; reason: RefusalReason; message: string };
type FromWorker = PdfReply | { type: "ready" } | { type: "fatal"; message: string };

/** The worker closes after this long without a PDF (a knowledge-base build sends them back to back). */
const IDLE_MS = 5 * 60_000;
/** A PDF parse may use this much heap before its worker is stopped. */
const WORKER_HEAP_MB = 512;

interface Pending {
  name: string;
  resolve(v: { text: string; title: string | null }): void;
  reject(e: Error): void;
}

let worker: Worker | null = null;
let nextId = 1;
let idleTimer: NodeJS.Timeout | null = null;
const pending = new Map<number, Pending>();

function failAll(why: (name: string) => string) {
  for (const [id, p] of pending) {
    pending.delete(id);
    p.reject(new ParseRefusal("corrupt", why(p.name)));
  }
}

function ensureWorker(): Worker {
  if (worker) return worker;
  const w = startTsWorker(new URL("./pdf-worker.ts", import.meta.url), null, {
    maxOldGenerationSizeMb: WORKER_HEAP_MB,
  });
  w.on("message", (m: FromWorker) => {
    if ("type" in m) {
      if (m.type === "fatal")
        failAll((name) => `${name} could not be read: the PDF reader failed to start (${m.message}).`);
      return;
    }
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve({ text: m.text, title: m.title });
    else p.reject(new ParseRefusal(m.reason, m.message));
    armIdle();
  });
  const gone = (why: string) => {
    if (worker === w) worker = null;
    failAll(
      (name) => `${name} could not be read to the end (${why}). The file may be damaged; try exporting it again.`,
    );
  };
  w.on("error", (err) => gone(err.message));
  w.on("exit", (code) => gone(`the PDF reader stopped with code ${code}`));
  worker = w;
  return w;
}

function armIdle() {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  if (pending.size > 0 || !worker) return;
  // Idle: the worker must not keep a finished process (a CLI run, a test) alive.
  worker.unref();
  idleTimer = setTimeout(() => void closePdfWorker(), IDLE_MS);
  idleTimer.unref();
}

/** Stops the worker (tests, shutdown); the next PDF starts a new one. */
export async function closePdfWorker(): Promise<void> {
  const w = worker;
  worker = null;
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  if (w) await w.terminate();
}

export async function pdfToText(bytes: Uint8Array, name: string): Promise<{ text: string; title: string | null }> {
  if (!isPdf(bytes))
    throw new ParseRefusal(
      "corrupt",
      `${name} is not a PDF (it does not start with the %PDF header). Check that the file is not damaged or mislabelled.`,
    );
  const w = ensureWorker();
  w.ref();
  if (idleTimer) clearTimeout(idleTimer);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { name, resolve, reject });
    // A copy goes over (structured clone): the caller keeps its bytes.
    w.postMessage({ id, bytes, name } satisfies PdfRequest);
  });
}

/** The header may follow up to 1 KB of junk (readers accept that, so do we). */
export function isPdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 1024)).includes("%PDF-");
}
