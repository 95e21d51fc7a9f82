/** Progress reports for a long ingest, throttled so a 200k-file upload doesn't flood the event bus. */

export type IngestPhase =
  "scanning" | "receiving" | "extracting" | "copying" | "cloning" | "checking_out" | "indexing" | "done";

export interface IngestProgress {
  phase: IngestPhase;
  /** Bytes handled so far in this phase (written, downloaded or indexed). */
  bytes: number;
  /** Expected bytes, when known up front (archives, git checkouts). */
  totalBytes?: number;
  /** Files handled so far in this phase. */
  files: number;
}

export type ProgressFn = (p: IngestProgress) => void;

const INTERVAL_MS = 100;

/** Wraps a callback: phase changes and forced reports go through; the rest at most every 100 ms. */
export function throttleProgress(onProgress: ProgressFn | undefined): (p: IngestProgress, force?: boolean) => void {
  if (!onProgress) return () => {};
  let last = 0;
  let lastPhase: IngestPhase | undefined;
  return (p, force = false) => {
    const now = Date.now();
    if (!force && p.phase === lastPhase && now - last < INTERVAL_MS) return;
    last = now;
    lastPhase = p.phase;
    onProgress({ ...p });
  };
}
