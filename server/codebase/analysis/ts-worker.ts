/**
 * Starts a worker thread on one of our TypeScript modules. Node 20 runs .ts only through tsx, and a
 * worker inherits neither `--import tsx` nor a loader registered in the main thread (measured), so
 * the worker registers tsx itself before importing the module (~0.4 s of start-up).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type ResourceLimits } from "node:worker_threads";

let apiUrl: string | undefined;

/** tsx's ESM register API, from its package.json exports (require.resolve would give the CJS build). */
function tsxEsmApi(): string {
  if (!apiUrl) {
    const require = createRequire(import.meta.url);
    const pkgJson = require.resolve("tsx/package.json");
    const pkg = JSON.parse(readFileSync(pkgJson, "utf8")) as {
      exports?: Record<string, { import?: { default?: string } }>;
    };
    const rel = pkg.exports?.["./esm/api"]?.import?.default ?? "./dist/esm/api/index.mjs";
    apiUrl = pathToFileURL(path.join(path.dirname(pkgJson), rel)).href;
  }
  return apiUrl;
}

/**
 * A worker running `moduleUrl`. If the bootstrap fails it posts `{ type: "fatal", message }`, so
 * callers handle one message shape for every failure before their module is up.
 */
export function startTsWorker(moduleUrl: URL, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  const code = `import(${JSON.stringify(tsxEsmApi())}).then((m) => { m.register(); return import(${JSON.stringify(moduleUrl.href)}); }).catch((e) => { require("node:worker_threads").parentPort.postMessage({ type: "fatal", message: String((e && e.stack) || e) }); });`;
  return new Worker(code, { eval: true, workerData, resourceLimits });
}
