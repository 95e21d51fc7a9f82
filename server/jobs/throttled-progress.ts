/**
 * Progress of a long job, written at most every `everyMs` (a forced write always goes), in order and
 * never concurrently; `settle()` waits for the writes in flight and stops any later ones, so a late
 * progress write cannot overwrite the job's final state.
 */
export interface ThrottledProgress<T> {
  (value: T, force?: boolean): void;
  settle(): Promise<void>;
}

export function throttledProgress<T>(
  write: (value: T) => Promise<unknown>,
  onError: (err: unknown) => void,
  everyMs = 500,
): ThrottledProgress<T> {
  let last = 0;
  let chain: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const report = ((value: T, force = false) => {
    const now = Date.now();
    if (stopped || (!force && now - last < everyMs)) return;
    last = now;
    chain = chain.then(() => write(value)).catch(onError);
  }) as ThrottledProgress<T>;
  report.settle = async () => {
    stopped = true;
    await chain;
  };
  return report;
}
