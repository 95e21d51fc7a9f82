"use client";
/**
 * Chunking settings in UltraRAG's corpus-server names (chunk_backend, tokenizer_or_token_counter,
 * chunk_size, chunk_overlap, min_sentences_per_chunk, delim, min_characters_per_chunk, use_title).
 * Saving re-chunks every document (no re-upload). The server validates; its messages show per field.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useEffect, useState, type FormEvent, type InputHTMLAttributes } from "react";
import { toast } from "sonner";
import { Button, Card, Field, FormError, Input, Select } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { BACKEND_NAMES, paramWords } from "@/server/shared/param-guide.ts";
import type { AppRouter } from "@/server/trpc/router.ts";

/** The base's settings as the API returns them (inferred from the router, never re-declared). */
type Chunking = inferRouterOutputs<AppRouter>["knowledge"]["get"]["chunking"];
type Backend = Chunking["chunk_backend"];

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

export function ChunkingForm({
  baseUid,
  chunking,
  canEdit,
}: {
  baseUid: string;
  chunking: Chunking;
  canEdit: boolean;
}) {
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
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => setForm((f) => ({ ...f, [key]: value }));

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

  const unit = form.tokenizer === "word" ? "words" : "characters";
  const otherError = err && !err.issues?.some((i) => i.path[0] === "chunking") ? err.message : undefined;
  return (
    // A container: the fields sit side by side only when the card is wide, not in the page's side column.
    <Card className="@container p-5">
      <h2 className="font-medium">Chunking</h2>
      <p className="mt-1 text-xs text-zinc-500">
        UltraRAG corpus parameters. Saving re-chunks and re-indexes every document; nothing is uploaded again.
      </p>
      <form onSubmit={submit} className="mt-4 space-y-4" aria-label="Chunking settings">
        <fieldset disabled={!canEdit} className="grid gap-4 @lg:grid-cols-2">
          <Field {...named("chunk_backend")} htmlFor="kb-backend">
            <Select id="kb-backend" value={form.backend} onChange={(e) => set("backend", e.target.value as Backend)}>
              <option value="sentence">{BACKEND_NAMES.sentence} (sentence)</option>
              <option value="token">{BACKEND_NAMES.token} (token)</option>
              <option value="recursive">{BACKEND_NAMES.recursive} (recursive)</option>
            </Select>
          </Field>
          <Field
            {...named("tokenizer_or_token_counter")}
            htmlFor="kb-tokenizer"
            error={fieldError("tokenizer_or_token_counter")}
          >
            <Select
              id="kb-tokenizer"
              value={form.tokenizer}
              onChange={(e) => set("tokenizer", e.target.value as "word" | "character")}
            >
              <option value="character">Characters (character)</option>
              <option value="word">Words (word)</option>
            </Select>
          </Field>
          <ParamField
            {...named("chunk_size")}
            id="kb-size"
            hint={`In ${unit}.`}
            error={fieldError("chunk_size")}
            inputMode="numeric"
            value={form.size}
            onChange={(e) => set("size", e.target.value)}
          />
          {form.backend !== "recursive" && (
            <ParamField
              {...named("chunk_overlap")}
              id="kb-overlap"
              hint={`In ${unit}; smaller than the passage size.`}
              error={fieldError(`chunk_backend_configs.${form.backend}.chunk_overlap`)}
              inputMode="numeric"
              value={form.overlap}
              onChange={(e) => set("overlap", e.target.value)}
            />
          )}
          {form.backend === "sentence" && (
            <>
              <ParamField
                {...named("min_sentences_per_chunk")}
                id="kb-min-sentences"
                error={fieldError("chunk_backend_configs.sentence.min_sentences_per_chunk")}
                inputMode="numeric"
                value={form.minSentences}
                onChange={(e) => set("minSentences", e.target.value)}
              />
              <ParamField
                {...named("delim")}
                id="kb-delim"
                hint="A Python list, as in UltraRAG parameter files."
                error={fieldError("chunk_backend_configs.sentence.delim")}
                className="font-mono"
                value={form.delim}
                onChange={(e) => set("delim", e.target.value)}
              />
            </>
          )}
          {form.backend === "recursive" && (
            <ParamField
              {...named("min_characters_per_chunk")}
              id="kb-min-chars"
              error={fieldError("chunk_backend_configs.recursive.min_characters_per_chunk")}
              inputMode="numeric"
              value={form.minChars}
              onChange={(e) => set("minChars", e.target.value)}
            />
          )}
          <label className="flex items-center gap-2 text-sm @lg:col-span-2">
            <input
              type="checkbox"
              checked={form.useTitle}
              onChange={(e) => set("useTitle", e.target.checked)}
              className="size-4 rounded border-zinc-300"
            />
            Put the document's title at the start of each passage
            <code className="text-xs text-zinc-500 dark:text-zinc-400">use_title</code>
          </label>
        </fieldset>
        <FormError message={otherError} />
        {canEdit && (
          <div className="flex gap-2">
            <Button type="submit" busy={save.isPending}>
              Save and re-chunk
            </Button>
            <Button variant="secondary" onClick={() => setForm(toForm(chunking))}>
              Reset
            </Button>
          </div>
        )}
      </form>
    </Card>
  );
}

/** A chunking parameter's plain label and its UltraRAG name (the key in the corpus server's parameters). */
const named = (key: string) => ({ label: paramWords([key]).label, name: key });

/** One chunking parameter's text field, marked invalid with the server's issue for it. */
function ParamField({
  label,
  name,
  id,
  hint,
  error,
  ...input
}: { label: string; name: string; id: string; hint?: string; error?: string } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  "name"
>) {
  return (
    <Field label={label} name={name} htmlFor={id} hint={hint} error={error}>
      <Input id={id} {...input} invalid={!!error} />
    </Field>
  );
}
