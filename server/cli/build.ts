/**
 * `npm start` builds the UI only when needed: the build is stamped with a hash of everything that
 * goes into it, and a changed hash (or no build at all) triggers `next build`.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { childProcessEnv } from "../config.ts";

const INPUTS = [
  "app",
  // The browser code imports server/shared (protocol shapes, pure helpers): a change there is a UI change.
  "server/shared",
  "public",
  "next.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "tsconfig.app.json",
  "package-lock.json",
];
const STAMP = path.join(".next", "argus-build-stamp");

function hashTree(root: string, rel: string, hash: ReturnType<typeof createHash>) {
  const full = path.join(root, rel);
  if (!existsSync(full)) return;
  if (statSync(full).isDirectory()) {
    for (const name of readdirSync(full).sort()) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      hashTree(root, path.join(rel, name), hash);
    }
    return;
  }
  if (rel.endsWith(".test.ts")) return;
  hash.update(rel).update("\0").update(readFileSync(full)).update("\0");
}

export function buildStamp(root: string): string {
  const hash = createHash("sha256");
  for (const input of INPUTS) hashTree(root, input, hash);
  return hash.digest("hex");
}

export function buildIsCurrent(root: string): boolean {
  const stampFile = path.join(root, STAMP);
  return (
    existsSync(path.join(root, ".next", "BUILD_ID")) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, "utf8") === buildStamp(root)
  );
}

/** Runs `next build` when the UI sources changed since the last build. Returns whether it built. */
export function buildIfNeeded(root: string, log: (msg: string) => void): boolean {
  if (buildIsCurrent(root)) return false;
  log("Building the web UI (first start or sources changed; takes about a minute)…");
  const stamp = buildStamp(root);
  const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");
  const result = spawnSync(process.execPath, [nextBin, "build"], {
    cwd: root,
    stdio: "inherit",
    env: childProcessEnv({ NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" }),
  });
  if (result.status !== 0)
    throw new Error(`next build failed (exit code ${result.status ?? result.signal}). The output above says why.`);
  writeFileSync(path.join(root, STAMP), stamp);
  return true;
}
