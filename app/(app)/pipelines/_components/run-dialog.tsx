"use client";
/** Start a run: on the pipeline's sample data set, an uploaded .jsonl, or one question asked as a chat. */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Field, FormActions, FormError, Input, Modal } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { runHref } from "./types.ts";

type Kind = "sample" | "upload" | "chat";
type Target = { uid: string } | { workspaceId: string; key: string };

const MAX_BYTES = 1_500_000;

export function RunDialog({ open, onClose, target }: { open: boolean; onClose: () => void; target: Target }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [kind, setKind] = useState<Kind>("sample");
  const [question, setQuestion] = useState("");
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const start = useMutation(
    trpc.pipelines.startRun.mutationOptions({
      onSuccess: (r) => router.push(runHref(r.uid)),
      onError: (err) => setError(errorInfo(err).message),
    }),
  );

  async function pick(f: File | undefined) {
    setError(null);
    if (!f) return setFile(null);
    if (f.size > MAX_BYTES) return setError(`${f.name} is over 1.5 MB: upload a smaller data set.`);
    setFile({ name: f.name, text: await f.text() });
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (kind === "upload" && !file) return setError("Choose a .jsonl file to run on.");
    if (kind === "chat" && !question.trim()) return setError("Ask a question.");
    start.mutate({
      target,
      dataset:
        kind === "sample"
          ? { kind }
          : kind === "upload"
            ? { kind, name: file!.name, text: file!.text }
            : { kind, question: question.trim() },
    });
  }

  const options: [Kind, string, string][] = [
    ["sample", "The sample data set", "The questions the pipeline's benchmark parameters name."],
    ["upload", "Upload a .jsonl file", "One JSON object per line, with the fields the benchmark's key_map reads."],
    ["chat", "Ask one question", "Runs the pipeline on a single question, like a chat."],
  ];
  return (
    <Modal open={open} onClose={onClose} title="Run pipeline">
      <form onSubmit={submit} className="space-y-4">
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">Run on</legend>
          {options.map(([value, label, hint]) => (
            <label key={value} className="flex cursor-pointer items-start gap-2 text-sm">
              <input
                type="radio"
                name="run-on"
                value={value}
                checked={kind === value}
                onChange={() => setKind(value)}
                className="mt-1"
              />
              <span>
                {label}
                <span className="block text-xs text-zinc-500">{hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
        {kind === "upload" && (
          <Field label="Data set (.jsonl)" htmlFor="run-file">
            <input
              id="run-file"
              type="file"
              accept=".jsonl,.json,application/jsonl,application/x-ndjson"
              onChange={(e) => void pick(e.target.files?.[0])}
              className="block w-full text-sm"
            />
          </Field>
        )}
        {kind === "chat" && (
          <Field label="Question" htmlFor="run-question">
            <Input id="run-question" value={question} onChange={(e) => setQuestion(e.target.value)} autoFocus />
          </Field>
        )}
        <FormError message={error} />
        <FormActions onCancel={onClose} submitLabel="Start run" busy={start.isPending} />
      </form>
    </Modal>
  );
}
