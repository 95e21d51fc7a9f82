/**
 * servers/corpus (spec §5.6): `build_text_corpus` turns documents into a JSONL corpus with the
 * knowledge-base parsers (.txt .md .html .pdf .docx; server/knowledge/parse), cleaned and reflowed as
 * upstream; `chunk_documents` cuts a corpus into chunks with the retrieval chunkers (token /
 * sentence / recursive, UltraRAG's parameters). Output files are written whole or not at all (a
 * temporary file renamed into place). Input paths stay inside the run's directory. Image corpora and
 * MinerU need a PDF renderer / the MinerU tool, which Argus does not ship: they fail saying so.
 */
import { createReadStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import type { CallContext } from "./contract.ts";
import { defineServer, ToolError, type ToolArgs } from "./define.ts";
import { runFiles } from "./run-files.ts";

const MAX_FILES = 10_000;

const inside = async (ctx: CallContext, p: unknown, name: string, tool: string) =>
  runFiles(ctx).read(p, name, `corpus.${tool}`);

/** Writes JSONL rows to `file` atomically: readers never see a half-written corpus. */
async function writeJsonl(file: string, rows: unknown[]): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(tmp, rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : ""));
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

const SENTENCE_END = /[。！？!?；;…]["'”’」』)）]*$/;

/** Upstream's cleaning and reflow: unify spaces and line ends, join wrapped lines, undo hyphenation. */
export function reflow(text: string): string {
  const cleaned = text
    .replace(/\u3000/g, " ")
    .replace(/\r\n?/g, "\n")
    .replace(/\n{3,}/g, "\n\n");
  return cleaned
    .split(/\n\n/)
    .map((para) => {
      const lines = para
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean);
      let out = "";
      for (const line of lines) {
        if (!out) out = line;
        else if (/[A-Za-z]-$/.test(out) && /^[a-z]/.test(line)) out = out.slice(0, -1) + line;
        else if (SENTENCE_END.test(out)) out += `\n${line}`;
        else out += /[\u3000-\u9fff]$/.test(out) || /^[\u3000-\u9fff]/.test(line) ? line : ` ${line}`;
      }
      return out;
    })
    .filter(Boolean)
    .join("\n\n")
    .trim();
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of (await readdir(d, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile()) out.push(full);
      if (out.length > MAX_FILES)
        throw new ToolError(`corpus.build_text_corpus: more than ${MAX_FILES} files under ${dir}`);
    }
  };
  await walk(dir);
  return out;
}

// The document parsers (pdf.js, mammoth) and chunkers load on first use.
const parsers = () => import("../../knowledge/parse/index.ts");
const chunkers = () => import("../../retrieval/chunk/text.ts");

async function buildTextCorpus(args: ToolArgs, ctx: CallContext) {
  const tool = "build_text_corpus";
  const { kindOf, parseDocument, ParseRefusal } = await parsers();
  const source = await inside(ctx, args.parse_file_path, "parse_file_path", tool);
  if (typeof args.text_corpus_save_path !== "string")
    throw new ToolError(`corpus.${tool}: text_corpus_save_path must be a path such as corpora/text.jsonl`);
  const single = (await stat(source)).isFile();
  const files = single ? [source] : await filesUnder(source);
  const rows: { id: string; title: string; contents: string }[] = [];
  for (const file of files) {
    const name = path.basename(file);
    if (!kindOf(name)) {
      if (single) throw new ToolError(`corpus.${tool}: ${name} is not a supported type (.txt .md .html .pdf .docx)`);
      ctx.notice?.(`skipped ${name}: not a supported type`);
      continue;
    }
    try {
      const doc = await parseDocument(name, await readFile(file));
      const contents = reflow(doc.text);
      const stem = name.replace(/\.[^.]+$/, "");
      if (contents) rows.push({ id: stem, title: stem, contents });
    } catch (err) {
      if (!(err instanceof ParseRefusal)) throw err;
      if (single) throw new ToolError(`corpus.${tool}: ${name}: ${err.message}`);
      ctx.notice?.(`skipped ${name}: ${err.message}`);
    }
  }
  if (!rows.length) throw new ToolError(`corpus.${tool}: no text found in ${String(args.parse_file_path)}`);
  await writeJsonl(runFiles(ctx).write(args.text_corpus_save_path, "text_corpus_save_path", `corpus.${tool}`), rows);
  return {};
}

async function chunkDocuments(args: ToolArgs, ctx: CallContext) {
  const tool = "chunk_documents";
  const { chunkText, optionsFromUltrarag, ultraragContents } = await chunkers();
  const source = await inside(ctx, args.raw_chunk_path, "raw_chunk_path", tool);
  if (typeof args.chunk_path !== "string") throw new ToolError(`corpus.${tool}: chunk_path must be a path`);
  let options;
  try {
    options = optionsFromUltrarag({
      chunk_backend: (args.chunk_backend ?? "token") as "token",
      tokenizer_or_token_counter: (args.tokenizer_or_token_counter ?? "character") as string,
      chunk_size: (args.chunk_size ?? 256) as number,
      chunk_backend_configs: (args.chunk_backend_configs ?? {}) as Record<string, never>,
    });
  } catch (err) {
    throw new ToolError(
      `corpus.${tool}: bad chunking parameters: ${err instanceof Error ? err.message.slice(0, 400) : String(err)}`,
    );
  }
  const useTitle = args.use_title === undefined ? true : args.use_title === true;
  const rows: { id: number; doc_id: unknown; title: string; contents: string }[] = [];
  const lines = createInterface({ input: createReadStream(source, "utf8"), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (!line.trim()) continue;
    let doc: { id?: unknown; title?: unknown; contents?: unknown };
    try {
      doc = JSON.parse(line) as typeof doc;
    } catch {
      lines.close();
      throw new ToolError(`corpus.${tool}: ${String(args.raw_chunk_path)}:${n} is not valid JSON`);
    }
    if (typeof doc.contents !== "string") continue;
    const title = typeof doc.title === "string" ? doc.title : String(doc.id ?? "");
    for (const c of chunkText(doc.contents, options)) {
      const contents = ultraragContents(c.text, title, useTitle);
      if (contents) rows.push({ id: rows.length, doc_id: doc.id ?? null, title, contents });
    }
  }
  if (!rows.length) throw new ToolError(`corpus.${tool}: ${String(args.raw_chunk_path)} has no text to chunk`);
  await writeJsonl(runFiles(ctx).write(args.chunk_path, "chunk_path", `corpus.${tool}`), rows);
  return {};
}

const unavailable = (what: string) => () => {
  throw new ToolError(what);
};

export const corpus = defineServer({
  name: "corpus",
  defaults: {
    parse_file_path: "data/UltraRAG.pdf",
    text_corpus_save_path: "corpora/text.jsonl",
    image_corpus_save_path: "corpora/image.jsonl",
    mineru_dir: "corpora/",
    mineru_extra_params: { source: "modelscope" },
    raw_chunk_path: "corpora/text.jsonl",
    chunk_path: "corpora/chunks.jsonl",
    use_title: false,
    chunk_backend: "sentence",
    tokenizer_or_token_counter: "character",
    chunk_size: 512,
    chunk_backend_configs: {
      token: { chunk_overlap: 50 },
      sentence: {
        chunk_overlap: 50,
        min_sentences_per_chunk: 1,
        delim: "['.', '!', '?', '；', '。', '！', '？', '\\n']",
      },
      recursive: { min_characters_per_chunk: 12 },
    },
  },
  tools: {
    build_text_corpus: { params: ["parse_file_path", "text_corpus_save_path"], run: buildTextCorpus },
    build_image_corpus: {
      params: ["parse_file_path", "image_corpus_save_path"],
      run: unavailable(
        "corpus.build_image_corpus: rendering PDF pages to images needs a PDF renderer, which Argus does not ship; build a text corpus with build_text_corpus instead",
      ),
    },
    mineru_parse: {
      params: ["parse_file_path", "mineru_dir", "mineru_extra_params"],
      run: unavailable(
        "corpus.mineru_parse: MinerU is a separate Python tool that Argus does not run; use build_text_corpus",
      ),
    },
    build_mineru_corpus: {
      params: ["mineru_dir", "parse_file_path", "text_corpus_save_path", "image_corpus_save_path"],
      run: unavailable(
        "corpus.build_mineru_corpus: needs MinerU's output, which Argus does not produce; use build_text_corpus",
      ),
    },
    chunk_documents: {
      params: [
        "raw_chunk_path",
        "chunk_backend_configs",
        "chunk_backend",
        "tokenizer_or_token_counter",
        "chunk_size",
        "chunk_path",
        "use_title",
      ],
      run: chunkDocuments,
    },
  },
});
