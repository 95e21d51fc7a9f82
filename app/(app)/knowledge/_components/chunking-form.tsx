"use client";
/**
 * Chunking settings in UltraRAG's corpus-server names (chunk_backend, tokenizer_or_token_counter,
 * chunk_size, chunk_overlap, min_sentences_per_chunk, delim, min_characters_per_chunk, use_title).
 * Saving re-chunks every document (no re-upload). The server validates; its messages show per field.
 */
import type { InputHTMLAttributes } from "react";
import { Button, Card, Field, FormError, Input, Select } from "@/app/_components/ui.tsx";
import { BACKEND_NAMES, paramWords } from "@/server/shared/param-guide.ts";
import { type Backend, type Chunking, useChunkingForm } from "./use-chunking-form.ts";

export function ChunkingForm({
  baseUid,
  chunking,
  canEdit,
}: {
  baseUid: string;
  chunking: Chunking;
  canEdit: boolean;
}) {
  const { form, set, reset, submit, saving, fieldError, otherError } = useChunkingForm(baseUid, chunking);
  const unit = form.tokenizer === "word" ? "words" : "characters";
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
            <Button type="submit" busy={saving}>
              Save and re-chunk
            </Button>
            <Button variant="secondary" onClick={reset}>
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
