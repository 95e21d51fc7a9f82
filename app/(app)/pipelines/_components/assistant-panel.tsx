"use client";
/**
 * The builder's assistant: describe a change, the workspace's model proposes it (checked by the
 * engine on the server before it is shown), and the proposal is shown as a diff to accept or reject.
 * Accepting makes it the draft — YAML, graph and form follow, unsaved until Save version, like a
 * manual edit. A proposal made for an older draft cannot be accepted (it would undo later edits).
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { Check, Sparkles, X } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { DiffView } from "@/app/_components/diff/diff-view.tsx";
import { MODEL_PROVIDERS_HREF } from "@/app/_components/model-connections.tsx";
import { Button, Card, DelayedSkeleton, ErrorNotice, Field, TextArea } from "@/app/_components/ui.tsx";
import { QueryError } from "@/app/_components/query-states.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import type { ParameterFile } from "./params.ts";

const EXAMPLES = ["add a reranker after retrieval", "make the prompt cite sources", "retrieve 5 passages"];

export function AssistantPanel({
  workspaceId,
  uid,
  source,
  parameters,
  onAccept,
}: {
  workspaceId: string;
  uid: string;
  source: string;
  parameters: ParameterFile;
  onAccept: (source: string, parameters: ParameterFile) => void;
}) {
  const trpc = useTRPC();
  const status = useQuery(trpc.pipelineAssistant.status.queryOptions({ workspaceId }));
  const [request, setRequest] = useState("");
  const [basis, setBasis] = useState<string | null>(null);
  const propose = useMutation(trpc.pipelineAssistant.propose.mutationOptions());
  const proposal = propose.data;
  const current = JSON.stringify([source, parameters]);
  const stale = Boolean(proposal) && basis !== current;

  if (status.isPending) return <DelayedSkeleton rows={2} />;
  if (status.isError) return <QueryError query={status} />;
  if (!status.data.configured)
    return (
      <Card className="space-y-2 p-4 text-sm">
        <p className="font-medium">The assistant needs a model.</p>
        <p className="text-zinc-600 dark:text-zinc-400">
          No model is configured for this workspace. An owner adds one in{" "}
          <Link href={MODEL_PROVIDERS_HREF} className="text-brand-700 underline dark:text-brand-300">
            Settings → Model providers
          </Link>{" "}
          (Anthropic, OpenAI or any OpenAI-compatible server such as Ollama), or the server sets ANTHROPIC_API_KEY or
          OPENAI_API_KEY. Then describe a change here and the assistant proposes it as a diff.
        </p>
      </Card>
    );

  const ask = () => {
    setBasis(current);
    propose.mutate({ uid, request, source, parameters });
  };

  return (
    <div className="space-y-4">
      <form
        className="space-y-2"
        onSubmit={(e) => {
          e.preventDefault();
          ask();
        }}
      >
        <Field label="Describe a change" htmlFor="assistant-request" hint={`Answered by ${status.data.model}.`}>
          <TextArea
            id="assistant-request"
            rows={3}
            maxLength={2000}
            placeholder={`e.g. “${EXAMPLES[0]}”`}
            value={request}
            onChange={(e) => setRequest(e.target.value)}
          />
        </Field>
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" busy={propose.isPending} disabled={request.trim().length < 3}>
            <Sparkles className="size-4" aria-hidden /> Propose a change
          </Button>
          {EXAMPLES.map((x) => (
            <button
              key={x}
              type="button"
              className="rounded-full border border-zinc-200 px-2 py-0.5 text-xs text-zinc-600 hover:bg-zinc-50 dark:border-zinc-800 dark:text-zinc-400 dark:hover:bg-zinc-900"
              onClick={() => setRequest(x)}
            >
              {x}
            </button>
          ))}
        </div>
      </form>

      {propose.isError && <ErrorNotice message={errorInfo(propose.error).message} onRetry={ask} />}

      {proposal && !propose.isPending && (
        <section aria-label="Proposed change" className="space-y-3">
          <p className="text-sm">
            <span className="font-medium">Proposal:</span> {proposal.summary}
          </p>
          {proposal.ignoredSecrets.length > 0 && (
            <p className="text-xs text-zinc-500">
              Left unchanged (the assistant never sets keys): {proposal.ignoredSecrets.join(", ")}
            </p>
          )}
          <DiffView lines={proposal.diff.source.lines} label="Proposed YAML" title="Pipeline YAML" />
          <DiffView lines={proposal.diff.parameters.lines} label="Proposed parameters" title="Parameters" />
          {stale && (
            <p className="text-xs text-amber-700 dark:text-amber-300">
              The draft changed after this proposal was made: ask again to apply it to the current draft.
            </p>
          )}
          <div className="flex gap-2">
            <Button
              disabled={stale}
              onClick={() => {
                onAccept(proposal.source, proposal.parameters as ParameterFile);
                propose.reset();
              }}
            >
              <Check className="size-4" aria-hidden /> Accept
            </Button>
            <Button variant="secondary" onClick={() => propose.reset()}>
              <X className="size-4" aria-hidden /> Reject
            </Button>
          </div>
        </section>
      )}
    </div>
  );
}
