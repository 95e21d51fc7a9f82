"use client";
/**
 * The conversations of a project (or of one review) for the panel: the threads as loaded and as the
 * room announces them, the open thread's messages merged with the room's live state, and asking.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useTRPC } from "@/app/_lib/trpc.ts";
import type { AskMessage, AskThread } from "@/server/shared/ask.ts";
import type { RoomEvent } from "@/server/shared/room-events.ts";
import { foldAsk, mergeMessage } from "./fold.ts";

export function useConversations(opts: {
  projectUid: string;
  reviewUid?: string;
  /** The room's events (project or review room). */
  events: readonly RoomEvent[];
  openThread: string | null;
}) {
  const trpc = useTRPC();
  const listed = useQuery(trpc.ask.threads.queryOptions({ projectUid: opts.projectUid, reviewUid: opts.reviewUid }));
  const opened = useQuery({
    ...trpc.ask.thread.queryOptions({ threadUid: opts.openThread ?? "00000000-0000-4000-8000-000000000000" }),
    enabled: !!opts.openThread,
  });
  const folded = useMemo(() => foldAsk(opts.events), [opts.events]);

  const threads = useMemo(() => {
    const all = new Map<string, AskThread>((listed.data ?? []).map((t) => [t.id, t]));
    for (const t of folded.threads.values()) if (!opts.reviewUid || t.reviewUid === opts.reviewUid) all.set(t.id, t);
    return [...all.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }, [listed.data, folded.threads, opts.reviewUid]);

  const messages = useMemo(() => {
    if (!opts.openThread) return [];
    const merged = new Map<string, AskMessage>();
    for (const m of opened.data?.messages ?? []) mergeMessage(merged, m);
    for (const m of folded.messages.values()) if (m.threadId === opts.openThread) mergeMessage(merged, m);
    return [...merged.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || order(a) - order(b));
  }, [opts.openThread, opened.data, folded.messages]);

  const ask = useMutation(trpc.ask.ask.mutationOptions());
  const cancel = useMutation(trpc.ask.cancel.mutationOptions());
  return { threads, messages, live: folded.live, refusals: folded.refusals, ask, cancel, loading: listed.isLoading };
}

/** A question before its answer when both were written in the same millisecond. */
const order = (m: AskMessage) => (m.kind === "question" ? 0 : 1);
