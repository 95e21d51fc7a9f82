"use client";
/**
 * One answer of a chat: its text with each citation `[n]` a link to source n below it, the sources
 * (numbered as the pipeline numbered them, each unfolding to its passage), and while the answer runs,
 * the tokens streaming in from its run's room. Text is rendered as text, never as HTML.
 */
import Link from "next/link";
import { useEffect, useMemo } from "react";
import { useRoom } from "@/app/_lib/room.ts";
import { citationParts, type ChatSource } from "@/server/shared/pipeline-chat.ts";
import { roomNameOrNull } from "@/server/shared/rooms.ts";
import { foldTrace } from "@/server/shared/run-trace.ts";
import { runHref } from "../../_components/types.ts";
import type { ChatTurnView } from "./types.ts";

const sourceAnchor = (turnUid: string, id: number) => `source-${turnUid}-${id}`;

function CitedText({ text, turnUid, sources }: { text: string; turnUid: string; sources: ChatSource[] }) {
  const parts = useMemo(() => citationParts(text, new Set(sources.map((s) => s.id))), [text, sources]);
  return (
    <p className="text-sm whitespace-pre-wrap" data-testid="answer-text">
      {parts.map((p, i) =>
        p.kind === "cite" ? (
          <a
            key={i}
            href={`#${sourceAnchor(turnUid, p.id)}`}
            aria-label={`Source ${p.id}`}
            className="mx-0.5 rounded bg-brand-50 px-1 align-super text-xs font-medium text-brand-700 hover:underline dark:bg-brand-950 dark:text-brand-300"
          >
            {p.text}
          </a>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </p>
  );
}

function Sources({ turnUid, sources, label }: { turnUid: string; sources: ChatSource[]; label: string }) {
  if (!sources.length) return null;
  return (
    <div className="mt-3">
      <h3 className="text-xs font-semibold text-zinc-500 uppercase">Sources</h3>
      <ol aria-label={label} className="mt-1 space-y-1">
        {sources.map((s) => (
          <li
            key={s.id}
            id={sourceAnchor(turnUid, s.id)}
            className="scroll-mt-24 rounded-md border border-zinc-200 text-sm target:ring-2 target:ring-brand-500 dark:border-zinc-800"
          >
            <details>
              <summary className="cursor-pointer px-2 py-1">
                <span className="font-mono text-xs text-zinc-500">[{s.id}]</span> {s.title}
              </summary>
              <p className="border-t border-zinc-200 px-2 py-1 text-xs whitespace-pre-wrap text-zinc-600 dark:border-zinc-800 dark:text-zinc-300">
                {s.content}
              </p>
            </details>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** A running answer: the tokens and sources of its run as they arrive; `onEnd` when the run ends. */
function LiveAnswer({ turn, onEnd }: { turn: ChatTurnView; onEnd: () => void }) {
  const state = useRoom(roomNameOrNull("run", turn.runUid ?? ""));
  const trace = useMemo(() => foldTrace(state.events), [state.events]);
  useEffect(() => {
    if (trace.finished) onEnd();
  }, [trace.finished, onEnd]);
  const streaming = [...trace.steps].reverse().find((s) => s.tokens);
  const sources = trace.steps.flatMap((s) => s.sources);
  const current = trace.steps[trace.steps.length - 1];
  return (
    <div aria-live="polite" aria-busy="true">
      {streaming ? (
        <CitedText text={streaming.tokens} turnUid={turn.uid} sources={sources.length ? sources : turn.sources} />
      ) : (
        <p className="text-sm text-zinc-500">
          {current ? `Running ${current.name}…` : state.connected ? "Starting…" : "Connecting…"}
        </p>
      )}
      <Sources turnUid={turn.uid} sources={sources} label="Sources so far" />
    </div>
  );
}

export function AnswerView({ turn, index, onEnd }: { turn: ChatTurnView; index: number; onEnd: () => void }) {
  const label = `Sources of answer ${index}`;
  return (
    <div className="min-w-0 rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
      {turn.status === "running" ? (
        <LiveAnswer turn={turn} onEnd={onEnd} />
      ) : turn.status === "done" ? (
        <>
          <CitedText text={turn.body} turnUid={turn.uid} sources={turn.sources} />
          <Sources turnUid={turn.uid} sources={turn.sources} label={label} />
          {turn.mode === "conversation" && turn.sources.length === 0 && (
            <p className="mt-2 text-xs text-zinc-500">Answered from the conversation (no new retrieval).</p>
          )}
        </>
      ) : (
        <p role="alert" className="text-sm text-amber-800 dark:text-amber-200">
          {turn.status === "cancelled" ? "Cancelled." : (turn.error ?? "The run failed.")}
        </p>
      )}
      {turn.runUid && (
        <p className="mt-2 text-xs text-zinc-500">
          {turn.mode === "conversation" ? "Follow-up over the conversation" : "The whole pipeline ran"} ·{" "}
          <Link href={runHref(turn.runUid)} className="hover:underline">
            view the run
          </Link>
        </p>
      )}
    </div>
  );
}
