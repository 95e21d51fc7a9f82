import { describe, expect, it } from "vitest";
import { chunkText, optionsFromUltrarag, parseDelim, ULTRARAG_DEFAULT_DELIM, type TextChunkOptions } from "./text.ts";

const base: TextChunkOptions = {
  backend: "token",
  tokenizer: "character",
  chunkSize: 5,
  chunkOverlap: 2,
  minSentencesPerChunk: 1,
  minCharactersPerSentence: 12,
  delim: ULTRARAG_DEFAULT_DELIM,
  minCharactersPerChunk: 12,
};
const texts = (input: string, o: Partial<TextChunkOptions>) => chunkText(input, { ...base, ...o }).map((c) => c.text);

describe("token backend", () => {
  it("characters: windows of chunk_size stepping by chunk_size − overlap, stopping at the end", () => {
    const chunks = chunkText("abcdefghij", base);
    expect(chunks.map((c) => [c.text, c.startIndex, c.endIndex, c.tokenCount])).toEqual([
      ["abcde", 0, 5, 5],
      ["defgh", 3, 8, 5],
      ["ghij", 6, 10, 4],
    ]);
  });
  it("words are split on single spaces and re-joined with one", () => {
    expect(texts("a b c d e f g", { tokenizer: "word", chunkSize: 3, chunkOverlap: 1 })).toEqual([
      "a b c",
      "c d e",
      "e f g",
    ]);
  });
  it("counts code points, not UTF-16 units", () => {
    expect(texts("😀😀😀", { chunkSize: 2, chunkOverlap: 0 })).toEqual(["😀😀", "😀"]);
  });
  it("blank text has no chunks; overlap ≥ size is refused", () => {
    expect(chunkText("  \n ", base)).toEqual([]);
    expect(() => chunkText("abc", { ...base, chunkOverlap: 5 })).toThrow(/overlap/);
  });
});

describe("sentence backend", () => {
  // Sentences (delimiter kept, " Third!" is shorter than 12 characters so it is glued on): 20, 20, 7 characters.
  const text = "First sentence here. Second one is here. Third!";
  const s = { backend: "sentence" as const, chunkOverlap: 0 };
  it("fills a chunk while the token sum stays strictly below chunk_size", () => {
    expect(texts(text, { ...s, chunkSize: 30 })).toEqual(["First sentence here.", " Second one is here. Third!"]);
    // 20 + 20 = 40 is not below 40: the second sentence starts the next chunk.
    expect(texts(text, { ...s, chunkSize: 40 })).toEqual(["First sentence here.", " Second one is here. Third!"]);
    expect(texts(text, { ...s, chunkSize: 41 })).toEqual(["First sentence here. Second one is here.", " Third!"]);
  });
  it("overlaps whole sentences, counting one extra token per sentence", () => {
    expect(texts(text, { ...s, chunkSize: 45, chunkOverlap: 21 })).toEqual([
      "First sentence here. Second one is here.",
      " Second one is here. Third!",
    ]);
    // 20 + 1 > 20: the sentence does not fit in the overlap, so nothing is repeated.
    expect(texts(text, { ...s, chunkSize: 45, chunkOverlap: 20 })).toEqual([
      "First sentence here. Second one is here.",
      " Third!",
    ]);
  });
  it("honours min_sentences_per_chunk, the last chunk taking what is left", () => {
    expect(texts(text, { ...s, chunkSize: 10, minSentencesPerChunk: 2 })).toEqual([
      "First sentence here. Second one is here.",
      " Third!",
    ]);
  });
  it("glues pieces shorter than 12 characters onto the next", () => {
    expect(texts("Hi. Ok. This is a longer sentence.", { ...s, chunkSize: 10 })).toEqual([
      "Hi. Ok. This is a longer sentence.",
    ]);
  });
  it('word tokens are split(" "): a leading space counts as an empty word', () => {
    // 3, 5 ("", Second, one, is, here.), 2 ("", Third!): 5 + 2 = 7 is not below 7.
    const chunks = chunkText(text, { ...base, ...s, tokenizer: "word", chunkSize: 7 });
    expect(chunks.map((c) => [c.text, c.tokenCount])).toEqual([
      ["First sentence here.", 3],
      [" Second one is here.", 5],
      [" Third!", 2],
    ]);
  });
  it("offsets slice the input", () => {
    for (const c of chunkText(text, { ...base, ...s, chunkSize: 30 }))
      expect(text.slice(c.startIndex, c.endIndex)).toBe(c.text);
  });
});

describe("recursive backend", () => {
  it("paragraphs, then words, reconstructing the text exactly", () => {
    const text = "Para one is here.\n\nPara two is a bit longer than thirty chars.";
    const chunks = chunkText(text, { ...base, backend: "recursive", chunkSize: 30 });
    expect(chunks.map((c) => c.text)).toEqual([
      "Para one is here.\n",
      "\nPara two is a bit longer",
      " than thirty chars.",
    ]);
    expect(chunks.map((c) => c.text).join("")).toBe(text);
    for (const c of chunks) expect(text.slice(c.startIndex, c.endIndex)).toBe(c.text);
  });
  it("falls back to raw token windows when no delimiter helps", () => {
    expect(texts("abcdefghijklmnopqrstuvwxyz", { backend: "recursive", chunkSize: 10 })).toEqual([
      "abcdefghij",
      "klmnopqrst",
      "uvwxyz",
    ]);
  });
});

describe("UltraRAG parameters", () => {
  it("parses the parameter file's Python list literal for delim", () => {
    expect(parseDelim("['.', '!', '?', '；', '。', '！', '？', '\\n']")).toEqual([
      ".",
      "!",
      "?",
      "；",
      "。",
      "！",
      "？",
      "\n",
    ]);
    expect(parseDelim(".!")).toEqual([".", "!"]);
    expect(() => parseDelim("['.', ")).toThrow(/Python list/);
  });
  it("applies the defaults and the overlap rule", () => {
    const o = optionsFromUltrarag({
      chunk_backend: "sentence",
      chunk_size: 100,
      chunk_backend_configs: { sentence: { chunk_overlap: 150, min_sentences_per_chunk: 2 } },
    });
    expect(o).toMatchObject({
      backend: "sentence",
      tokenizer: "character",
      chunkSize: 100,
      chunkOverlap: 25,
      minSentencesPerChunk: 2,
      delim: ULTRARAG_DEFAULT_DELIM,
    });
    expect(optionsFromUltrarag({})).toMatchObject({
      backend: "token",
      chunkSize: 256,
      chunkOverlap: 64,
      minCharactersPerChunk: 50,
    });
    expect(
      optionsFromUltrarag({ chunk_backend: "token", chunk_backend_configs: { token: { chunk_overlap: 50 } } })
        .chunkOverlap,
    ).toBe(50);
  });
  it("refuses tokenizers it cannot reproduce", () => {
    expect(() => optionsFromUltrarag({ tokenizer_or_token_counter: "gpt2" })).toThrow(/word.*character/);
  });
});
