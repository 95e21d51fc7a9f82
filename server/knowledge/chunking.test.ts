import { describe, expect, it } from "vitest";
import { chunkDocument, type SourceText } from "./build.ts";
import { chunkingSchema, chunkOptions, DEFAULT_CHUNKING, readChunking } from "./chunking.ts";
import { cleanName } from "../http/routes/knowledge-upload.ts";

const doc = (text: string, extra: Partial<SourceText> = {}): SourceText => ({
  documentUid: "d1",
  name: "guide.md",
  kind: "markdown",
  sha256: "abc",
  title: null,
  text,
  ...extra,
});

describe("chunking settings", () => {
  it("defaults to UltraRAG's shipped corpus parameters", () => {
    expect(DEFAULT_CHUNKING).toMatchObject({
      chunk_backend: "sentence",
      tokenizer_or_token_counter: "character",
      chunk_size: 512,
      use_title: false,
    });
    expect(chunkOptions(DEFAULT_CHUNKING)).toMatchObject({
      backend: "sentence",
      chunkSize: 512,
      chunkOverlap: 50,
      minSentencesPerChunk: 1,
      delim: [".", "!", "?", "；", "。", "！", "？", "\n"],
    });
  });

  it("accepts UltraRAG's string form of delim and fills in the other backends' defaults", () => {
    const c = chunkingSchema.parse({
      chunk_backend: "token",
      chunk_backend_configs: { sentence: { delim: "['.', '\\n']" } },
    });
    expect(chunkOptions({ ...c, chunk_backend: "sentence" }).delim).toEqual([".", "\n"]);
    expect(c.chunk_backend_configs.token.chunk_overlap).toBe(50);
    expect(c.chunk_backend_configs.recursive.min_characters_per_chunk).toBe(12);
  });

  it("an overlap only matters for the backend in use", () => {
    expect(
      chunkingSchema.safeParse({
        chunk_backend: "recursive",
        chunk_size: 20,
        chunk_backend_configs: { token: { chunk_overlap: 50 } },
      }).success,
    ).toBe(true);
    expect(
      chunkingSchema.safeParse({
        chunk_backend: "token",
        chunk_size: 20,
        chunk_backend_configs: { token: { chunk_overlap: 50 } },
      }).success,
    ).toBe(false);
  });

  it("a stored value that no longer parses falls back to the defaults instead of breaking the base", () => {
    expect(readChunking("{broken")).toEqual(DEFAULT_CHUNKING);
    expect(readChunking(JSON.stringify({ chunk_size: -4 }))).toEqual(DEFAULT_CHUNKING);
    expect(readChunking(JSON.stringify({ chunk_size: 64 })).chunk_size).toBe(64);
  });
});

describe("chunk rows of a document", () => {
  it("carry the document uid, line ranges in the extracted text, and searchable name and title words", () => {
    const text = "First line about parsing.\nSecond line.\n\nThird paragraph mentions parseConfigFile here.";
    const rows = chunkDocument(
      doc(text, { title: "Setup Guide" }),
      chunkingSchema.parse({
        chunk_backend: "token",
        tokenizer_or_token_counter: "word",
        chunk_size: 16,
        chunk_backend_configs: { token: { chunk_overlap: 0 } },
      }),
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(
      rows.every(
        (r) =>
          r.file === "d1" && r.language === "markdown" && r.contentHash === "abc" && r.symbolPath === "Setup Guide",
      ),
    ).toBe(true);
    expect(rows[0]).toMatchObject({ id: "d1#0", startLine: 1 });
    expect(rows[rows.length - 1]!.endLine).toBe(4);
    expect(rows[0]!.namesText).toContain("guide");
    expect(rows[0]!.namesText).toContain("setup");
    expect(rows.map((r) => r.searchText).join(" ")).toMatch(/\bconfig\b/); // identifiers split
  });

  it("use_title prefixes the chunk contents the way UltraRAG writes them", () => {
    const [row] = chunkDocument(
      doc("Body text.", { title: null, name: "notes.txt" }),
      chunkingSchema.parse({ use_title: true }),
    );
    expect(row!.text).toBe("Title:\nnotes\n\nContent:\nBody text.");
  });

  it("an empty text yields no rows", () => {
    expect(chunkDocument(doc(""), DEFAULT_CHUNKING)).toEqual([]);
  });
});

describe("upload file names", () => {
  it("keep the base name, drop control characters, and keep the extension when shortened", () => {
    expect(cleanName("../../etc/passwd")).toBe("passwd");
    expect(cleanName("C:\\Users\\me\\report.pdf")).toBe("report.pdf");
    expect(cleanName("bad\u0000na\u001bme.txt")).toBe("badname.txt");
    expect(cleanName("")).toBe("document");
    const long = cleanName(`${"x".repeat(300)}.docx`);
    expect(long).toHaveLength(200);
    expect(long.endsWith(".docx")).toBe(true);
  });
});
