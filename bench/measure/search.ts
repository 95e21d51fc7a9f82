/**
 * Index build time and per-mode search latency on real code, outside the tests (timings are not
 * asserted there):   node --import tsx bench/measure/search.ts [dir] [copies]
 * Indexes every .ts/.js/.py file under dir (default server/) into a temp LanceDB, `copies` times under
 * distinct prefixes to grow the table, then times 50 queries per mode (identifiers from the corpus).
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { indexSnapshot, type SnapshotFile } from "../../server/retrieval/index-snapshot.ts";
import { search } from "../../server/retrieval/search.ts";
import { connect, openChunkIndex } from "../../server/retrieval/store/index.ts";

const LANG: Record<string, string> = { ".ts": "typescript", ".js": "javascript", ".py": "python" };
const root = path.resolve(process.argv[2] ?? "server");
const copies = Number(process.argv[3] ?? 1);
const files: SnapshotFile[] = [];
const walk = (dir: string) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && !e.name.startsWith(".") && e.name !== "node_modules") walk(p);
    else if (e.isFile() && LANG[path.extname(e.name)])
      files.push({ path: path.relative(root, p), language: LANG[path.extname(e.name)]! });
  }
};
walk(root);
// Copies are the same files under other names (root-relative `../` is not needed: a symlink-free
// trick — the same source read through `./` prefixes the index treats as distinct paths).
const list = Array.from({ length: copies }, (_, c) =>
  files.map((f) => ({ ...f, path: c ? `./${"./".repeat(c - 1)}${f.path}` : f.path })),
).flat();
const dir = mkdtempSync(path.join(tmpdir(), "argus-measure-"));
const store = await connect(path.join(dir, "db"));
let t = performance.now();
const built = await indexSnapshot(store, "measure", root, list);
console.log(
  `${list.length} files → ${built.rows} chunks; build ${(performance.now() - t).toFixed(0)} ms (plan: ${built.plan.vector})`,
);
const index = (await openChunkIndex(store, "measure"))!;
const queries = [
  "parse config file",
  "retry backoff",
  "symbol index writer",
  "session token",
  "chunk overlap lines",
  "embed batch",
  "socket room join",
  "snapshot storage path",
  "trpc router",
  "git commit metadata",
];
for (const mode of ["fulltext", "vector", "hybrid"] as const) {
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    t = performance.now();
    await search(index, queries[i % queries.length]!, { mode, k: 10 });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`${mode}: p50 ${times[25]!.toFixed(1)} ms, p95 ${times[47]!.toFixed(1)} ms`);
}
index.close();
store.close();
rmSync(dir, { recursive: true, force: true });
