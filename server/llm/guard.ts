/**
 * Wraps a provider's event iterator so that it can never hang: each next() races the abort signal and
 * an idle timer. Why not trust the SDKs: their request timeout stops at the response headers, and on
 * abort their stream iterators end quietly instead of throwing, which looks like a normal end.
 */
import { IdleTimeoutError } from "./errors.ts";

export async function* guarded<T>(
  source: AsyncIterable<T>,
  controller: AbortController,
  idleTimeoutMs: number,
): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    while (true) {
      const r = await nextWithin(it, controller, idleTimeoutMs);
      if (r.done) {
        finished = true;
        return;
      }
      yield r.value;
    }
  } finally {
    if (!finished) {
      // Abort first: a return() queued behind a pending next() would otherwise wait for it forever.
      controller.abort();
      it.return?.().catch(() => {});
    }
  }
}

function nextWithin<T>(it: AsyncIterator<T>, controller: AbortController, idleMs: number): Promise<IteratorResult<T>> {
  const signal = controller.signal;
  if (signal.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      done();
      reject(signal.reason ?? new Error("aborted"));
    };
    const timer = setTimeout(() => {
      done();
      const err = new IdleTimeoutError(idleMs);
      controller.abort(err);
      reject(err);
    }, idleMs);
    signal.addEventListener("abort", onAbort, { once: true });
    it.next().then(
      (r) => {
        done();
        resolve(r);
      },
      (e: unknown) => {
        done();
        reject(e);
      },
    );
  });
}
