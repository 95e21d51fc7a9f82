"use client";
/**
 * Starting a chat: pick a pipeline that answers questions (the workspace's own first, then the
 * gallery's); those that cannot chat are listed apart with the reason. `?pipeline=<uid>` or
 * `?gallery=<key>` preselects one (the pipeline pages link here).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { MessagesSquare } from "lucide-react";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { QueryError } from "@/app/_components/query-states.tsx";
import { Button, DelayedSkeleton, EmptyState, FormError, PageHeader } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { chatHref, type ChatPipeline } from "./types.ts";

const keyOf = (p: ChatPipeline) => ("uid" in p.target ? `p:${p.target.uid}` : `g:${p.target.key}`);

export function NewChat() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const queryClient = useQueryClient();
  const { workspace, canEdit } = useWorkspace();
  const list = useQuery(trpc.pipelineChat.pipelines.queryOptions({ workspaceId: workspace.id }));
  const wanted = params.get("pipeline")
    ? `p:${params.get("pipeline")}`
    : params.get("gallery")
      ? `g:${params.get("gallery")}`
      : null;
  const [picked, setPicked] = useState<string | null>(wanted);
  const create = useMutation(
    trpc.pipelineChat.create.mutationOptions({
      onSuccess: ({ uid }) => {
        void queryClient.invalidateQueries({ queryKey: trpc.pipelineChat.sessions.pathKey() });
        router.push(chatHref(uid));
      },
    }),
  );

  const header = (
    <PageHeader
      title="Chat with a pipeline"
      description="Talk to a pipeline that answers questions: the first question runs the whole pipeline, follow-ups continue the conversation with its model. Answers show the sources they cite."
    />
  );
  if (list.isPending)
    return (
      <>
        {header}
        <DelayedSkeleton rows={4} />
      </>
    );
  if (list.isError)
    return (
      <>
        {header}
        <QueryError query={list} />
      </>
    );
  const offered = list.data.filter((p) => p.ok);
  const others = list.data.filter((p) => !p.ok);
  const choice = offered.find((p) => keyOf(p) === picked) ?? null;

  if (!canEdit)
    return (
      <>
        {header}
        <EmptyState icon={<MessagesSquare className="size-8" aria-hidden />} title="Read the team's sessions">
          Viewers read and export the workspace&apos;s chat sessions (on the left); members start them.
        </EmptyState>
      </>
    );

  return (
    <>
      {header}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (choice) create.mutate({ target: choice.target });
        }}
        className="space-y-4"
      >
        <fieldset>
          <legend className="mb-2 text-sm font-medium">Pipeline</legend>
          {offered.length === 0 ? (
            <p className="text-sm text-zinc-500">No pipeline here can answer questions.</p>
          ) : (
            <ul className="grid gap-2 sm:grid-cols-2" aria-label="Pipelines that can chat">
              {offered.map((p) => (
                <li key={keyOf(p)}>
                  <label className="flex h-full cursor-pointer items-start gap-2 rounded-md border border-zinc-200 p-3 text-sm has-checked:border-brand-500 has-checked:ring-2 has-checked:ring-brand-500/30 dark:border-zinc-800">
                    <input
                      type="radio"
                      name="pipeline"
                      className="mt-0.5"
                      checked={picked === keyOf(p)}
                      onChange={() => setPicked(keyOf(p))}
                    />
                    <span className="min-w-0">
                      <span className="block font-medium">{p.title}</span>
                      <span className="block font-mono text-xs text-zinc-500">
                        {p.name}.yaml · {p.kind === "gallery" ? "gallery" : "this workspace"}
                      </span>
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          )}
        </fieldset>
        <FormError message={create.error ? errorInfo(create.error).message : null} />
        <Button type="submit" disabled={!choice} busy={create.isPending}>
          <MessagesSquare className="size-4" aria-hidden /> Start chat
        </Button>
      </form>
      {others.length > 0 && (
        <details className="mt-6 text-sm">
          <summary className="cursor-pointer text-zinc-600 dark:text-zinc-300">
            Not offered: {others.length} pipelines that cannot chat
          </summary>
          <ul className="mt-2 space-y-1" aria-label="Pipelines that cannot chat">
            {others.map((p) => (
              <li key={keyOf(p)}>
                <span className="font-medium">{p.title}</span>{" "}
                <span className="font-mono text-xs text-zinc-500">{p.name}.yaml</span>{" "}
                <span className="text-zinc-500">— {p.reason}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}
