/**
 * Throughput of the hash embedder on real code, outside the tests (timings are not asserted there):
 *   node --import tsx bench/measure/hash.ts [dir]   (default: server/)
 * Chunks every .ts/.js/.py file under dir with the code chunker, then times fit and embed.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { chunkCode } from "../../server/retrieval/chunk/code.ts";
import { HashEmbedder } from "../../server/retrieval/embed/hash.ts";

const LANG: Record<string, string> = {
  ".ts": "typescript",
  ".tsx": "tsx",
  ".js": "javascript",
  ".mjs": "javascript",
  ".py": "python",
};
const root = path.resolve(process.argv[2] ?? "server");
const files: string[] = [];
const walk = (dir: string) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && !e.name.startsWith(".")) walk(p);
    else if (e.isFile() && LANG[path.extname(e.name)]) files.push(p);
  }
};
walk(root);

let t = performance.now();
const texts: string[] = [];
for (const f of files)
  for (const c of await chunkCode({ path: f, language: LANG[path.extname(f)]!, source: readFileSync(f, "utf8") }))
    texts.push(c.text);
const chunkMs = performance.now() - t;
t = performance.now();
const embedder = new HashEmbedder().fit(texts);
const fitMs = performance.now() - t;
t = performance.now();
await embedder.embed(texts);
const embedMs = performance.now() - t;
const rate = (ms: number) => Math.round(texts.length / (ms / 1000));
console.log(
  `${files.length} files → ${texts.length} chunks (mean ${Math.round(texts.reduce((s, x) => s + x.length, 0) / texts.length)} chars)`,
);
console.log(
  `chunk ${chunkMs.toFixed(0)} ms (${rate(chunkMs)} chunks/s), fit IDF ${fitMs.toFixed(0)} ms (${rate(fitMs)} chunks/s), embed ${embedMs.toFixed(0)} ms (${rate(embedMs)} chunks/s, ${embedder.dims} dims, ${embedder.idfState()!.features.length} IDF features kept)`,
);
