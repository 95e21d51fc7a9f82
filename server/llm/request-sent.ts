/**
 * "The model has been asked": lets a caller run work that must not delay a model request (an
 * answer's bookkeeping: its rows and room events, server/ask/enqueue.ts) right after the request
 * has been sent, instead of before it.
 *
 * `afterFirstRequest(onSent, work)` runs `work` with `onSent` in its async context (AsyncLocalStorage
 * follows every await of the SDK call, and Node's fetch publishes its `undici:request:bodySent`
 * diagnostics event in the context of the fetch that made the request). So `onSent` is called the
 * moment the first request's body is written to the connection. The providers' SDKs are given
 * `signallingFetch`, which also calls it when the response (or a failure) arrives, should the event
 * never come. `onSent` is called exactly once: also when `work` settles without a request (no model,
 * a refusal, an error).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import diagnostics from "node:diagnostics_channel";

const waiting = new AsyncLocalStorage<() => void>();

let listening = false;
function listen() {
  if (listening) return;
  listening = true;
  diagnostics.subscribe("undici:request:bodySent", () => waiting.getStore()?.());
}

export async function afterFirstRequest<T>(onSent: () => void, work: () => Promise<T>): Promise<T> {
  listen();
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    onSent();
  };
  try {
    return await waiting.run(once, work);
  } finally {
    once();
  }
}

/** `signallingFetch` over another fetch (the outbound policy's, for base URLs a user chose). */
export const signallingFetchOver =
  (base: typeof fetch): typeof fetch =>
  (input, init) => {
    const onSent = waiting.getStore();
    const response = base(input, init);
    if (onSent) response.then(onSent, onSent);
    return response;
  };

/** The fetch the providers' SDKs use: the global one (looked up per call), telling `afterFirstRequest` when it has been answered. */
export const signallingFetch: typeof fetch = signallingFetchOver((input, init) => fetch(input, init));
