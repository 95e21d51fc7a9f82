/** Worker-thread side of pool.ts: runs file passes on the batches it is sent. */
import { parentPort, workerData } from "node:worker_threads";
import { runFilePass, type PassInput, type PassOptions, type PassResult } from "./pass.ts";

export type ToWorker = { type: "batch"; files: PassInput[] };
export type FromWorker =
  { type: "ready" } | { type: "results"; results: PassResult[] } | { type: "fatal"; message: string };

const port = parentPort;
if (port) {
  const options = workerData as PassOptions;
  port.on("message", (message: ToWorker) => {
    void (async () => {
      const results: PassResult[] = [];
      for (const file of message.files) results.push(await runFilePass(file, options));
      port.postMessage({ type: "results", results } satisfies FromWorker);
    })();
  });
  port.postMessage({ type: "ready" } satisfies FromWorker);
}
