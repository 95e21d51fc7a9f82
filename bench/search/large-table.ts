/**
 * A large chunk table from a small real one: every base chunk is replicated with perturbation until the
 * table holds `target` rows. A copy renames ~30% of the chunk's distinct identifiers to other
 * identifiers of the same corpus (consistently within the chunk) and drops ~10% of its lines, so
 *  - vocabulary, identifier shapes and chunk lengths stay those of real code (full text sees real
 *    term statistics, the hash embedder real feature counts);
 *  - no two rows are identical, and copies of one chunk are near each other without being ties
 *    (exact top-10 lists are well defined, so ANN recall against them means something).
 * Deterministic: a seeded PRNG per (copy, chunk).
 */
import { chunkCode } from "../../server/retrieval/chunk/code.ts";
import type { ChunkRow } from "../../server/retrieval/store/index.ts";
import { searchFields } from "../../server/retrieval/text/fields.ts";
import type { QualitySet } from "./quality.ts";

export type BaseChunk = Omit<ChunkRow, "vector">;

const RENAME_SHARE = 0.3;
const DROP_LINE_SHARE = 0.1;
const KEYWORDS = new Set(
  "break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof let new null return super switch this throw true try typeof undefined var void while with yield async await of static get set".split(
    " ",
  ),
);

/** mulberry32: a tiny seeded PRNG (quality is ample for choosing words and lines). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const IDENT = /[A-Za-z_$][A-Za-z0-9_$]*/g;

export function perturb(text: string, vocabulary: readonly string[], random: () => number): string {
  const names = [...new Set(text.match(IDENT) ?? [])].filter((n) => n.length >= 3 && !KEYWORDS.has(n));
  const rename = new Map<string, string>();
  for (const n of names)
    if (random() < RENAME_SHARE) rename.set(n, vocabulary[Math.floor(random() * vocabulary.length)]!);
  const lines = text.split("\n");
  const kept = lines.filter((_, i) => i === 0 || random() >= DROP_LINE_SHARE);
  return kept.join("\n").replace(IDENT, (n) => rename.get(n) ?? n);
}

/** `target` rows: the base chunks first, then perturbed copies (copy c lives under `copy-c/`). */
export function* replicate(base: readonly BaseChunk[], target: number): Generator<BaseChunk> {
  const vocabulary = [...new Set(base.flatMap((c) => c.text.match(IDENT) ?? []))]
    .filter((n) => n.length >= 3 && !KEYWORDS.has(n))
    .sort();
  let made = 0;
  for (let copy = 0; made < target; copy++) {
    for (let i = 0; i < base.length && made < target; i++, made++) {
      const b = base[i]!;
      if (copy === 0) {
        yield b;
        continue;
      }
      const text = perturb(b.text, vocabulary, prng(copy * 1_000_003 + i));
      const file = `copy-${copy}/${b.file}`;
      yield {
        ...b,
        id: `copy-${copy}/${b.id}`,
        file,
        endLine: b.startLine + text.split("\n").length - 1,
        text,
        ...searchFields({ path: file, symbolPath: b.symbolPath, text }),
      };
    }
  }
}

/** The code set's chunks as rows (what indexSnapshot stores), for replication. */
export async function baseChunks(set: QualitySet): Promise<BaseChunk[]> {
  const base: BaseChunk[] = [];
  for (const f of set.files) {
    const chunks = await chunkCode({ path: f.path, language: f.language, source: f.text });
    chunks.forEach((c, i) =>
      base.push({
        id: `${f.path}#${i}:${c.startLine}-${c.endLine}`,
        file: f.path,
        language: f.language,
        startLine: c.startLine,
        endLine: c.endLine,
        symbolPath: c.symbolPath,
        symbolKinds: [...new Set(c.symbols.map((s) => s.kind))],
        text: c.text,
        ...searchFields({
          path: f.path,
          symbolPath: c.symbolPath,
          symbolNames: c.symbols.map((s) => s.path),
          text: c.text,
        }),
        contentHash: f.path,
      }),
    );
  }
  return base;
}
