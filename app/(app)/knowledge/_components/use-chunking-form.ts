"use client";
/**
 * The chunking form's state: the base's settings as form fields, the fields back as the settings
 * the API takes (a switched-away backend keeps its saved overlap), saving them, and the server's
 * messages per field.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useEffect, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import type { AppRouter } from "@/server/trpc/router.ts";

/** The base's settings as the API returns them (inferred from the router, never re-declared). */
export type Chunking = inferRouterOutputs<AppRouter>["knowledge"]["get"]["chunking"];
export type Backend = Chunking["chunk_backend"];

/** A delimiter list as UltraRAG's parameter files write it: ['.', '!', '\n']. */
function pythonList(delim: string[] | string): string {
  if (typeof delim === "string") return delim;
  const esc = (s: string) =>
    s.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(/\r/g, "\\r");
  return `[${delim.map((d) => `'${esc(d)}'`).join(", ")}]`;
}

interface FormState {
  backend: Backend;
  tokenizer: "word" | "character";
  size: string;
  overlap: string;
  minSentences: string;
  delim: string;
  minChars: string;
  useTitle: boolean;
}

function toForm(c: Chunking): FormState {
  return {
    backend: c.chunk_backend,
    tokenizer: c.tokenizer_or_token_counter,
    size: String(c.chunk_size),
    overlap: String(
      c.chunk_backend === "token"
        ? c.chunk_backend_configs.token.chunk_overlap
        : c.chunk_backend_configs.sentence.chunk_overlap,
    ),
    minSentences: String(c.chunk_backend_configs.sentence.min_sentences_per_chunk),
    delim: pythonList(c.chunk_backend_configs.sentence.delim),
    minChars: String(c.chunk_backend_configs.recursive.min_characters_per_chunk),
    useTitle: c.use_title,
  };
}

const num = (s: string) => (s.trim() === "" ? Number.NaN : Number(s));

export function useChunkingForm(baseUid: string, chunking: Chunking) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<FormState>(() => toForm(chunking));
  const saved = JSON.stringify(chunking);
  useEffect(() => setForm(toForm(JSON.parse(saved) as Chunking)), [saved]);
  const save = useMutation(
    trpc.knowledge.setChunking.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });
        toast.success("Chunking saved; re-chunking the documents");
      },
    }),
  );
  const err = save.error ? errorInfo(save.error) : null;
  /** The first server message about a field (issues under `chunking`, by their full path). */
  const fieldError = (...keys: string[]) =>
    err?.issues?.find((i) => i.path[0] === "chunking" && keys.includes(i.path.slice(1).join(".")))?.message;
  /** A server message about no field in particular. */
  const otherError = err && !err.issues?.some((i) => i.path[0] === "chunking") ? err.message : undefined;
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => setForm((f) => ({ ...f, [key]: value }));
  const reset = () => setForm(toForm(chunking));

  function submit(e: FormEvent) {
    e.preventDefault();
    const overlap = num(form.overlap);
    save.mutate({
      uid: baseUid,
      chunking: {
        chunk_backend: form.backend,
        tokenizer_or_token_counter: form.tokenizer,
        chunk_size: num(form.size),
        use_title: form.useTitle,
        chunk_backend_configs: {
          token: {
            chunk_overlap: form.backend === "token" ? overlap : chunking.chunk_backend_configs.token.chunk_overlap,
          },
          sentence: {
            chunk_overlap:
              form.backend === "sentence" ? overlap : chunking.chunk_backend_configs.sentence.chunk_overlap,
            min_sentences_per_chunk: num(form.minSentences),
            delim: form.delim,
          },
          recursive: { min_characters_per_chunk: num(form.minChars) },
        },
      },
    });
  }
  return { form, set, reset, submit, saving: save.isPending, fieldError, otherError };
}
