/**
 * Text chunking (markdown, docs, extracted PDF text) with UltraRAG's corpus parameters (ULTRARAG-SPEC
 * §5.6 `chunk_documents`), which hands them to chonkie 1.7's TokenChunker / SentenceChunker /
 * RecursiveChunker. Where the spec is silent the behaviour follows chonkie's pure-Python reference
 * implementation (its fallback path), quirks included, so a corpus chunked here and one chunked by
 * UltraRAG agree:
 *  - sentence ends keep their delimiter (include_delim "prev"); pieces shorter than
 *    min_characters_per_sentence (12) are glued to what follows;
 *  - a sentence chunk holds sentences while their token sum stays *strictly below* chunk_size
 *    (bisect_left − 1), at least one sentence and at least min_sentences_per_chunk;
 *  - sentence overlap walks back whole sentences, counting one extra token per sentence;
 *  - the word "tokenizer" is `text.split(" ")` (so "a  b" is three tokens) and decodes by joining
 *    with a space; the character tokenizer counts code points, like Python's len().
 * Offsets (startIndex/endIndex) are JavaScript string indices into the input, for slicing here.
 */
import { z } from "zod";

export type TextTokenizer = "word" | "character";
export type TextBackend = "token" | "sentence" | "recursive";

export interface TextChunk {
  text: string;
  /** UTF-16 offsets into the input: text === input.slice(startIndex, endIndex). */
  startIndex: number;
  endIndex: number;
  tokenCount: number;
}

export interface TextChunkOptions {
  backend: TextBackend;
  tokenizer: TextTokenizer;
  chunkSize: number;
  /** token / sentence backends. */
  chunkOverlap: number;
  /** sentence backend. */
  minSentencesPerChunk: number;
  minCharactersPerSentence: number;
  delim: string[];
  /** recursive backend. */
  minCharactersPerChunk: number;
}

/** UltraRAG's defaults for `chunk_documents` when a parameter is absent (spec §5.6). */
export const ULTRARAG_DEFAULT_DELIM = [".", "!", "?", "；", "。", "！", "？"];
const DEFAULT_OVERLAP = 64;
const DEFAULT_MIN_CHARACTERS_PER_SENTENCE = 12; // chonkie's default; UltraRAG does not pass it
const DEFAULT_MIN_CHARACTERS_PER_CHUNK = 50;

/** UltraRAG's parameter names, as they appear in a corpus server's parameter file. */
export const ultraragChunkParamsSchema = z.object({
  chunk_backend: z.enum(["token", "sentence", "recursive"]).default("token"),
  tokenizer_or_token_counter: z
    .string()
    .default("character")
    .refine((t) => t === "word" || t === "character", {
      message:
        'tokenizer_or_token_counter: only "word" and "character" are supported here (tiktoken encodings are not available offline)',
    }),
  chunk_size: z.number().int().positive().default(256),
  chunk_backend_configs: z
    .object({
      token: z.object({ chunk_overlap: z.number().int().nonnegative().optional() }).partial().optional(),
      sentence: z
        .object({
          chunk_overlap: z.number().int().nonnegative().optional(),
          min_sentences_per_chunk: z.number().int().positive().optional(),
          delim: z.union([z.string(), z.array(z.string().min(1))]).optional(),
        })
        .partial()
        .optional(),
      recursive: z.object({ min_characters_per_chunk: z.number().int().positive().optional() }).partial().optional(),
    })
    .partial()
    .default({}),
});
export type UltraragChunkParams = z.input<typeof ultraragChunkParamsSchema>;

/** UltraRAG parameters → options, applying its defaults and its overlap rule (≥ chunk_size → size/4). */
export function optionsFromUltrarag(params: UltraragChunkParams): TextChunkOptions {
  const p = ultraragChunkParamsSchema.parse(params);
  const configs = p.chunk_backend_configs;
  const rawOverlap =
    (p.chunk_backend === "sentence" ? configs.sentence?.chunk_overlap : configs.token?.chunk_overlap) ??
    DEFAULT_OVERLAP;
  const delim = configs.sentence?.delim;
  return {
    backend: p.chunk_backend,
    tokenizer: p.tokenizer_or_token_counter as TextTokenizer,
    chunkSize: p.chunk_size,
    chunkOverlap: rawOverlap >= p.chunk_size ? Math.trunc(p.chunk_size / 4) : rawOverlap,
    minSentencesPerChunk: configs.sentence?.min_sentences_per_chunk ?? 1,
    minCharactersPerSentence: DEFAULT_MIN_CHARACTERS_PER_SENTENCE,
    delim: delim === undefined ? ULTRARAG_DEFAULT_DELIM : parseDelim(delim),
    minCharactersPerChunk: configs.recursive?.min_characters_per_chunk ?? DEFAULT_MIN_CHARACTERS_PER_CHUNK,
  };
}

/**
 * UltraRAG reads a string `delim` with Python's `ast.literal_eval` (its parameter file writes
 * `"['.', '!', '\\n']"`). A string that is not a list literal is, for chonkie, a sequence of
 * one-character delimiters (it iterates the string).
 */
export function parseDelim(delim: string | string[]): string[] {
  if (Array.isArray(delim)) return delim;
  const trimmed = delim.trim();
  if (!trimmed.startsWith("[")) return [...delim];
  const out: string[] = [];
  const literal = /\s*(['"])((?:\\.|(?!\1)[^\\])*)\1\s*(,|\])/y;
  literal.lastIndex = 1;
  let m: RegExpExecArray | null;
  while ((m = literal.exec(trimmed))) {
    out.push(unescapePython(m[2]!));
    if (m[3] === "]") return out;
  }
  if (/^\[\s*\]$/.test(trimmed)) return [];
  throw new Error(`delim: not a Python list of strings: ${delim.slice(0, 80)}`);
}

function unescapePython(s: string): string {
  const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, e: string) =>
    e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (map[e] ?? `\\${e}`),
  );
}

export function chunkText(text: string, options: TextChunkOptions): TextChunk[] {
  if (options.chunkSize <= 0) throw new Error("chunk_size must be positive");
  if (options.backend !== "recursive" && options.chunkOverlap >= options.chunkSize)
    throw new Error("chunk_overlap must be less than chunk_size");
  if (!text.trim()) return [];
  switch (options.backend) {
    case "token":
      return tokenChunks(text, options);
    case "sentence":
      return sentenceChunks(text, options);
    case "recursive":
      return recursiveChunks(text, 0, 0, options);
  }
}

/** A row's `contents` as UltraRAG writes it (use_title prefixes the document title). */
export function ultraragContents(chunk: string, title: string, useTitle: boolean): string {
  return (useTitle ? `Title:\n${title}\n\nContent:\n${chunk}` : chunk).trim();
}

// ---- tokenizers -------------------------------------------------------------------------------

/** Tokens with their UTF-16 offsets. */
interface Token {
  text: string;
  start: number;
}

function encode(text: string, tokenizer: TextTokenizer): Token[] {
  const tokens: Token[] = [];
  if (tokenizer === "character") {
    let i = 0;
    for (const ch of text) {
      tokens.push({ text: ch, start: i });
      i += ch.length;
    }
  } else {
    let i = 0;
    for (const w of text.split(" ")) {
      tokens.push({ text: w, start: i });
      i += w.length + 1;
    }
  }
  return tokens;
}

function countTokens(text: string, tokenizer: TextTokenizer): number {
  if (tokenizer === "word") return text.split(" ").length;
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function decode(tokens: Token[], tokenizer: TextTokenizer): string {
  return tokens.map((t) => t.text).join(tokenizer === "word" ? " " : "");
}

// ---- token backend ----------------------------------------------------------------------------

function tokenChunks(text: string, o: TextChunkOptions): TextChunk[] {
  const tokens = encode(text, o.tokenizer);
  const step = o.chunkSize - o.chunkOverlap;
  const chunks: TextChunk[] = [];
  for (let start = 0; start < tokens.length; start += step) {
    const end = Math.min(start + o.chunkSize, tokens.length);
    const group = tokens.slice(start, end);
    const last = group[group.length - 1]!;
    chunks.push({
      text: decode(group, o.tokenizer),
      startIndex: group[0]!.start,
      endIndex: last.start + last.text.length,
      tokenCount: group.length,
    });
    if (end === tokens.length) break;
  }
  return chunks;
}

// ---- sentence backend -------------------------------------------------------------------------

/** Split after every delimiter occurrence, dropping empty pieces, then glue short pieces forward. */
function splitKeepingDelims(text: string, delims: string[], minChars: number): string[] {
  // chonkie marks cut points with a sentinel and replaces delimiters one after another; a sentinel
  // absent from the text keeps that exact behaviour without its "✄ in the input" bug.
  let sep = "\u{F0000}";
  while (text.includes(sep)) sep += "\u{F0001}";
  let t = text;
  for (const d of delims) if (d) t = t.split(d).join(d + sep);
  const pieces = t.split(sep).filter((s) => s !== "");
  return glueShort(pieces, minChars);
}

/** Python len() of a str is code points; chonkie compares piece lengths with len(). */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function glueShort(pieces: string[], minChars: number): string[] {
  const len = codePoints;
  const out: string[] = [];
  let current = "";
  for (const s of pieces) {
    if (len(s) < minChars) current += s;
    else if (current) {
      current += s;
      out.push(current);
      current = "";
    } else out.push(s);
    if (len(current) >= minChars) {
      out.push(current);
      current = "";
    }
  }
  if (current) out.push(current);
  return out;
}

interface Sentence {
  text: string;
  start: number;
  tokens: number;
}

function sentenceChunks(text: string, o: TextChunkOptions): TextChunk[] {
  const sentences: Sentence[] = [];
  let offset = 0;
  for (const s of splitKeepingDelims(text, o.delim, o.minCharactersPerSentence)) {
    sentences.push({ text: s, start: offset, tokens: countTokens(s, o.tokenizer) });
    offset += s.length;
  }
  const sums = [0];
  for (const s of sentences) sums.push(sums[sums.length - 1]! + s.tokens);

  const chunks: TextChunk[] = [];
  let pos = 0;
  while (pos < sentences.length) {
    // bisect_left(sums, sums[pos] + size) − 1: the last prefix whose sum is strictly below the target.
    const target = sums[pos]! + o.chunkSize;
    let split = bisectLeft(sums, target, pos) - 1;
    split = Math.max(Math.min(split, sentences.length), pos + 1);
    if (split - pos < o.minSentencesPerChunk) split = Math.min(pos + o.minSentencesPerChunk, sentences.length);
    const group = sentences.slice(pos, split);
    const chunkText = group.map((s) => s.text).join("");
    chunks.push({
      text: chunkText,
      startIndex: group[0]!.start,
      endIndex: group[0]!.start + chunkText.length,
      tokenCount: countTokens(chunkText, o.tokenizer),
    });
    if (o.chunkOverlap > 0 && split < sentences.length) {
      let overlapTokens = 0;
      let idx = split - 1;
      while (idx > pos && overlapTokens < o.chunkOverlap) {
        const next = overlapTokens + sentences[idx]!.tokens + 1; // chonkie: "+1 for space"
        if (next > o.chunkOverlap) break;
        overlapTokens = next;
        idx--;
      }
      pos = idx + 1;
    } else pos = split;
  }
  return chunks;
}

function bisectLeft(a: number[], x: number, lo = 0): number {
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ---- recursive backend ------------------------------------------------------------------------

/** chonkie's default RecursiveRules: paragraphs, sentences, pauses, words, then raw tokens. */
interface Level {
  delimiters?: string[];
  whitespace?: boolean;
}
const RECURSIVE_LEVELS: Level[] = [
  { delimiters: ["\n\n", "\r\n", "\n", "\r"] },
  { delimiters: [". ", "! ", "? "] },
  { delimiters: ["{", "}", '"', "[", "]", "<", ">", "(", ")", ":", ";", ",", "—", "|", "~", "-", "...", "`", "'"] },
  { whitespace: true },
  {},
];

function recursiveChunks(text: string, level: number, startOffset: number, o: TextChunkOptions): TextChunk[] {
  if (!text) return [];
  const rule = RECURSIVE_LEVELS[level];
  if (!rule) return [makeChunk(text, countTokens(text, o.tokenizer), startOffset)];

  let merged: string[];
  let counts: number[];
  if (rule.whitespace) {
    const splits = text.split(" ");
    [merged, counts] = mergeSplits(
      splits,
      splits.map((s) => countTokens(s, o.tokenizer)),
      o.chunkSize,
      true,
    );
    // chonkie's reconstruction fix: " ".join drops the space before every merged piece but the first.
    merged = merged.map((m, i) => (i === 0 ? m : ` ${m}`));
  } else if (rule.delimiters) {
    let sep = "\u{F0000}";
    while (text.includes(sep)) sep += "\u{F0001}";
    let t = text;
    for (const d of rule.delimiters) t = t.split(d).join(d + sep);
    const splits = glueShort(
      t.split(sep).filter((s) => s !== ""),
      o.minCharactersPerChunk,
    );
    [merged, counts] = mergeSplits(
      splits,
      splits.map((s) => countTokens(s, o.tokenizer)),
      o.chunkSize,
      false,
    );
  } else {
    // Last level: cut the token stream every chunk_size tokens.
    const tokens = encode(text, o.tokenizer);
    merged = [];
    for (let i = 0; i < tokens.length; i += o.chunkSize)
      merged.push(decode(tokens.slice(i, i + o.chunkSize), o.tokenizer));
    counts = merged.map((m) => countTokens(m, o.tokenizer));
  }

  const chunks: TextChunk[] = [];
  let offset = startOffset;
  for (let i = 0; i < merged.length; i++) {
    const piece = merged[i]!;
    if (counts[i]! > o.chunkSize) chunks.push(...recursiveChunks(piece, level + 1, offset, o));
    else chunks.push(makeChunk(piece, counts[i]!, offset));
    offset += piece.length;
  }
  return chunks;
}

function makeChunk(text: string, tokenCount: number, start: number): TextChunk {
  return { text, startIndex: start, endIndex: start + text.length, tokenCount };
}

/** Greedy merge of consecutive splits while the running token sum stays below chunk_size. */
function mergeSplits(splits: string[], counts: number[], size: number, whitespace: boolean): [string[], number[]] {
  if (!splits.length) return [[], []];
  if (counts.every((c) => c > size)) return [splits, counts];
  const cum = [0];
  for (const c of counts) cum.push(cum[cum.length - 1]! + c + (whitespace ? 1 : 0));
  const merged: string[] = [];
  const merges: number[] = [];
  let cur = 0;
  while (cur < splits.length) {
    let index = Math.min(bisectLeft(cum, cum[cur]! + size, cur) - 1, splits.length);
    if (index === cur) index++;
    merged.push(splits.slice(cur, index).join(whitespace ? " " : ""));
    merges.push(cum[Math.min(index, splits.length)]! - cum[cur]!);
    cur = index;
  }
  return [merged, merges];
}
