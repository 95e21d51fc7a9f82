/** servers/corpus (spec §5.6) — declared only; calls fail with "not implemented in Argus yet". */
import { defineServer } from "./define.ts";

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
    build_text_corpus: { params: ["parse_file_path", "text_corpus_save_path"] },
    build_image_corpus: { params: ["parse_file_path", "image_corpus_save_path"] },
    mineru_parse: { params: ["parse_file_path", "mineru_dir", "mineru_extra_params"] },
    build_mineru_corpus: {
      params: ["mineru_dir", "parse_file_path", "text_corpus_save_path", "image_corpus_save_path"],
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
    },
  },
});
