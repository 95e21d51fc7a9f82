"use client";
/**
 * What a running review is doing: its room's events, live over Socket.IO (polling the persisted log
 * when the socket cannot connect). Events are de-duplicated by seq.
 * Shows status changes, tool calls and results, usage and the model's streamed text. A replay renders
 * the same log (`ActivityLog`) over the events up to its moment. The log is virtualised
 * (@tanstack/react-virtual): a review of 20,000 events keeps all its lines, and only the ones in view
 * are in the DOM.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import type { RoomState } from "@/app/_lib/room.ts";
import { useTRPCClient } from "@/app/_lib/trpc.ts";
import { Card, cx } from "../ui.tsx";
import { formatCost, formatTokens } from "./format.ts";
import type { ReviewEvent } from "./types.ts";

const POLL_MS = 2000;
/** Events kept while polling (as many as the room keeps live: app/_lib/room.ts). */
const MAX_POLLED = 50_000;
const STREAM_TAIL = 1500;
/** One formatter for every line (`toLocaleString` builds a new one per call: slow over 20,000 events). */
const count = new Intl.NumberFormat();

/** One short line per tool argument set: `read_file src/app.ts 1-80`. */
function summarizeInput(input: Record<string, unknown>): string {
  const parts = Object.entries(input).map(([k, v]) =>
    typeof v === "string"
      ? k === "path" || k === "pattern" || k === "query"
        ? v
        : `${k}=${v}`
      : `${k}=${JSON.stringify(v)}`,
  );
  const text = parts.join(" ");
  return text.length > 140 ? `${text.slice(0, 137)}…` : text;
}

/**
 * The review's events: live over its Socket.IO room when the socket connects, else — once the socket
 * could not connect — by polling the persisted log (`reviews.events` with afterSeq every 2 s, or the
 * caller's `poll`, e.g. a share link's `shares.events`): the same events either way. A room being
 * joined is not polled (its join is reading the same log).
 */
export function useReviewEvents(
  reviewUid: string,
  live: boolean,
  room: RoomState<"review">,
  poll?: (afterSeq: number) => Promise<ReviewEvent[]>,
) {
  const client = useTRPCClient();
  const read = poll ?? ((afterSeq: number) => client.reviews.events.query({ uid: reviewUid, afterSeq }));
  // The reader of the latest render, without restarting the polling loop when it changes identity.
  const reader = useRef(read);
  useEffect(() => {
    reader.current = read;
  });
  const [polled, setPolled] = useState<ReviewEvent[]>([]);
  const lastSeq = useRef(0);
  const [error, setError] = useState<string | null>(null);
  // A room refused or revoked for lack of rights: polling the same events would be refused too.
  const polling = room.offline && !room.connected && !room.error;

  useEffect(() => {
    if (!polling) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    async function tick() {
      try {
        const batch = await reader.current(lastSeq.current);
        if (stopped) return;
        const fresh = batch.filter((e) => e.seq > lastSeq.current);
        if (fresh.length) {
          lastSeq.current = fresh[fresh.length - 1]!.seq;
          setPolled((prev) => [...prev, ...fresh].slice(-MAX_POLLED));
        }
        setError(null);
      } catch (err) {
        if (!stopped) setError((err as Error).message);
      }
      // One last read after the review ends picks up its final events.
      if (!stopped && live) timer = setTimeout(() => void tick(), POLL_MS);
    }
    void tick();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [reviewUid, live, polling]);

  if (room.connected) return { events: room.events, error: room.error, live: true };
  return { events: polled, error: room.error ?? error, live: false };
}

interface Line {
  seq: number;
  kind: "status" | "tool" | "result" | "error" | "done" | "info" | "hint";
  text: string;
  detail?: string;
}

function toLines(events: readonly ReviewEvent[]): {
  lines: Line[];
  stream: string;
  usage: { input: number; output: number; cost?: number; requests: number } | null;
} {
  const lines: Line[] = [];
  let stream = "";
  let usage: { input: number; output: number; cost?: number; requests: number } | null = null;
  for (const e of events) {
    switch (e.type) {
      case "review_status":
        lines.push({
          seq: e.seq,
          kind: "status",
          text: `Review ${e.payload.status}${e.payload.reason ? ` — ${e.payload.reason}` : ""}`,
        });
        stream = "";
        break;
      case "status":
        lines.push({ seq: e.seq, kind: "status", text: e.payload.message });
        stream = "";
        break;
      case "progress":
        lines.push({
          seq: e.seq,
          kind: "info",
          text: `${e.payload.stage} (${Math.round(e.payload.fraction * 100)} %)`,
        });
        break;
      case "token":
        stream = (stream + e.payload.text).slice(-STREAM_TAIL);
        break;
      case "tool_call":
        lines.push({ seq: e.seq, kind: "tool", text: `${e.payload.name} ${summarizeInput(e.payload.input)}` });
        stream = "";
        break;
      case "tool_result": {
        const p = e.payload;
        lines.push({
          seq: e.seq,
          kind: p.isError ? "error" : "result",
          text: `${p.name} → ${p.isError ? "error" : `${count.format(p.chars)} chars`} in ${Math.round(p.durationMs)} ms`,
          detail: p.preview,
        });
        break;
      }
      case "usage":
        usage = {
          input: e.payload.usage.inputTokens,
          output: e.payload.usage.outputTokens,
          cost: e.payload.costUsd,
          requests: e.payload.requests,
        };
        break;
      case "finding":
        lines.push({ seq: e.seq, kind: "info", text: `finding: ${e.payload.finding.title}` });
        break;
      case "report":
        lines.push({
          seq: e.seq,
          kind: "info",
          text: `report: ${e.payload.findings} findings, score ${Math.round(e.payload.overallScore)}`,
        });
        break;
      case "error":
        lines.push({ seq: e.seq, kind: "error", text: e.payload.message });
        break;
      case "done":
        lines.push({
          seq: e.seq,
          kind: "done",
          text: `done (${e.payload.stopReason}) after ${e.payload.iterations} iterations`,
        });
        break;
      case "hint":
        lines.push({ seq: e.seq, kind: "hint", text: `hint from ${e.payload.author.name}: ${e.payload.text}` });
        break;
      case "hint_delivered":
        lines.push({ seq: e.seq, kind: "info", text: `hint given to the model before turn ${e.payload.iteration}` });
        break;
      case "steering": {
        const what = { paused: "paused", resumed: "resumed", stop_requested: "stopped" }[e.payload.action];
        lines.push({ seq: e.seq, kind: "status", text: `${what} by ${e.payload.by.name}` });
        break;
      }
      case "finding_dismissed":
      case "finding_restored":
      case "chat_message": // the chat panel shows these
      case "chat_reactions":
      case "finding_votes": // and the findings list these
      case "finding_resolved":
      case "thread_count":
      case "ask.thread": // conversations with Argus have their own panel
      case "ask.message":
      case "ask.token":
      case "ask.tool_call":
      case "ask.tool_result":
      case "ask.usage":
      case "ask.refused":
        break;
      default: {
        // Every event type of a review room is handled above (checked by the compiler).
        const unhandled: never = e;
        void unhandled;
      }
    }
  }
  return { lines, stream, usage };
}

const kindClass: Record<Line["kind"], string> = {
  status: "text-brand-700 dark:text-brand-100 font-medium",
  tool: "text-zinc-800 dark:text-zinc-200",
  result: "text-zinc-500",
  error: "text-red-700 dark:text-red-400",
  done: "text-green-700 dark:text-green-400 font-medium",
  info: "text-zinc-600 dark:text-zinc-400",
  hint: "text-amber-800 dark:text-amber-300",
};

export function ActivityPanel({
  reviewUid,
  live,
  room,
  poll,
  actions,
}: {
  reviewUid: string;
  live: boolean;
  /** The review room, joined by the page (the chat shares it). */
  room: RoomState<"review">;
  /** Reads the persisted log after a seq when the socket cannot connect (default: reviews.events). */
  poll?: (afterSeq: number) => Promise<ReviewEvent[]>;
  /** Controls shown in the panel's header (e.g. "Follow the agent"). */
  actions?: ReactNode;
}) {
  const { events, error, live: streaming } = useReviewEvents(reviewUid, live, room, poll);
  return <ActivityLog events={events} live={live} streaming={streaming} error={error} actions={actions} />;
}

/**
 * The activity stream of a list of review events: the live panel's and a replay's (which passes the
 * events up to its moment), so both read the same.
 */
export function ActivityLog({
  events,
  live,
  streaming,
  error,
  actions,
  footer,
  loading = false,
}: {
  events: readonly ReviewEvent[];
  /** The review is still running (the empty log then says it is waiting). */
  live: boolean;
  /** Events arrive as they happen (shows "live"). */
  streaming: boolean;
  error?: string | null;
  actions?: ReactNode;
  /** Below the log (a replay's scrubber). */
  footer?: ReactNode;
  /** The log is still being read: says so, in the room the log will take (the page below does not jump). */
  loading?: boolean;
}) {
  const { lines, stream, usage } = useMemo(() => toLines(events), [events]);
  const box = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const virtualizer = useVirtualizer({
    count: lines.length,
    getScrollElement: () => box.current,
    estimateSize: () => 20, // one line of text-xs leading-5; longer ones are measured
    overscan: 12,
    getItemKey: (i) => lines[i]!.seq,
  });
  useEffect(() => {
    // Follow the log while the reader is at its end (as they are when it opens, however much arrives
    // at once): only the lines in view exist, so the latest must be scrolled to, to be there at all.
    // Scrolling up stops following; back at the end it resumes. Block body: see docs/architecture.md.
    const el = box.current;
    if (el && following.current) el.scrollTop = el.scrollHeight;
  }, [lines.length, stream]);
  const onScroll = () => {
    const el = box.current;
    if (el) following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  };

  return (
    <Card className="p-4">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h2 className="flex items-center gap-2 text-sm font-semibold">
          Activity
          {streaming && live && (
            <span
              className="inline-flex items-center gap-1 text-xs font-normal text-green-700 dark:text-green-400"
              title="Events arrive as they happen"
            >
              <span className="h-1.5 w-1.5 rounded-full bg-green-600" aria-hidden /> live
            </span>
          )}
        </h2>
        <div className="flex flex-wrap items-center gap-3">
          {usage && (
            <p className="text-xs tabular-nums text-zinc-500" aria-label="Usage so far">
              {formatTokens(usage.input)} in · {formatTokens(usage.output)} out · {usage.requests} requests
              {usage.cost !== undefined ? ` · ${formatCost(usage.cost)}` : ""}
            </p>
          )}
          {actions}
        </div>
      </div>
      <div
        ref={box}
        onScroll={onScroll}
        className={cx(
          "overflow-y-auto rounded-md bg-zinc-50 p-3 font-mono text-xs leading-5 dark:bg-zinc-900",
          loading ? "h-80" : "max-h-80",
        )}
        aria-busy={loading}
        aria-live="polite"
        aria-label="Review activity"
        // What the log is built from (events held, the last seq): a rebuilt log can be checked against the room's.
        data-events={events.length}
        data-last-seq={events.at(-1)?.seq ?? 0}
      >
        {lines.length === 0 && !stream && (
          <p className="text-zinc-500">
            {loading
              ? "Loading the activity…"
              : live
                ? "Waiting for the review to start…"
                : "No activity was recorded."}
          </p>
        )}
        <div className="relative" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const l = lines[item.index]!;
            return (
              <div
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className={cx("absolute left-0 top-0 w-full break-words", kindClass[l.kind])}
                style={{ transform: `translateY(${item.start}px)` }}
                title={l.detail || undefined}
              >
                {l.text}
              </div>
            );
          })}
        </div>
        {stream && (
          <div className="mt-1 whitespace-pre-wrap break-words text-zinc-700 dark:text-zinc-300">{stream}</div>
        )}
      </div>
      {footer}
      {error && <p className="mt-2 text-xs text-red-600">Could not load the activity: {error}</p>}
    </Card>
  );
}
