/**
 * A chat turn's answer from the run that produced it, once that run has ended: the generated text
 * (the last `ans_ls` in the run's memory file — the full text the model wrote, citations included,
 * not a value a later step extracted from it — else the tokens streamed, else the run's own answer)
 * and the sources its retrieval steps sent (the room's `sources` events, by id, the latest text of an
 * id kept). The room's log is the run's record, so this works after a restart too.
 */
import { readSnapshots } from "../engine/cases.ts";
import type { RoomEvent } from "../../shared/room-events.ts";
import type { ChatSource } from "../../shared/pipeline-chat.ts";
import { foldTrace } from "../../shared/run-trace.ts";

export interface RunEnd {
  status: string;
  error: string | null;
  outputs: string | null;
  memoryFile: string | null;
}

export interface TurnResult {
  status: "done" | "failed" | "cancelled";
  body: string;
  sources: ChatSource[];
  error: string | null;
}

function firstText(v: unknown): string | null {
  if (Array.isArray(v)) return v.length ? firstText(v[0]) : null;
  if (typeof v === "string") return v;
  if (v && typeof v === "object") {
    const o = v as { text?: unknown; content?: unknown };
    if (typeof o.text === "string") return o.text;
    if (typeof o.content === "string") return o.content;
  }
  return null;
}

/** The last `ans_ls` the memory file holds (`memory_ans_ls` as UltraRAG names it), or null. */
export function memoryAnswer(memoryFile: string | null): string | null {
  if (!memoryFile) return null;
  try {
    const snapshots = readSnapshots(memoryFile);
    for (let i = snapshots.length - 1; i >= 0; i--) {
      const m = snapshots[i]!.memory;
      const v = m.memory_ans_ls ?? m.ans_ls;
      const text = firstText(v);
      if (text !== null) return text.trim();
    }
  } catch {
    // The folder was removed: fall back to what the room recorded.
  }
  return null;
}

export function turnResult(run: RunEnd, events: readonly RoomEvent<"run">[]): TurnResult {
  const trace = foldTrace(events);
  const byId = new Map<number, ChatSource>();
  for (const step of trace.steps)
    for (const s of step.sources) byId.set(s.id, { id: s.id, title: s.title, content: s.content });
  const sources = [...byId.values()].sort((a, b) => a.id - b.id);
  if (run.status === "cancelled") return { status: "cancelled", body: "", sources, error: "Cancelled." };
  if (run.status !== "completed")
    return { status: "failed", body: "", sources, error: run.error ?? trace.error ?? "The run failed." };
  const streamed =
    [...trace.steps]
      .reverse()
      .find((s) => s.tokens.trim())
      ?.tokens.trim() ?? null;
  const outputs = run.outputs ? (JSON.parse(run.outputs) as { answer?: string | null }) : null;
  const body = memoryAnswer(run.memoryFile) ?? streamed ?? trace.answer ?? outputs?.answer ?? "";
  if (!body.trim()) return { status: "failed", body: "", sources, error: "The pipeline finished without an answer." };
  return { status: "done", body, sources, error: null };
}
