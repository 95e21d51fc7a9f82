/**
 * What the chat adds on the server, next to baselines measured in the same run:
 * - listing which pipelines can chat (the chat page's first query): checking all gallery pipelines,
 *   cold (every one inspected) — baseline: inspecting them for the gallery page's cards;
 * - exporting a long session (100 turns, 5 sources an answer, citations) as Markdown and as .docx —
 *   baseline: JSON.stringify of the same session (what reading it costs on the wire anyway);
 * - building a follow-up's history over that session.
 */
import { galleryEntries } from "../server/pipelines/workspace/gallery.ts";
import { inspectPipeline } from "../server/pipelines/workspace/inspect.ts";
import { chatCapability } from "../server/pipelines/chat/capability.ts";
import { historyMessages, type PastTurn } from "../server/pipelines/chat/conversation.ts";
import { sessionDocx, sessionMarkdown, type ExportSession } from "../server/pipelines/chat/export.ts";
import type { ChatTurn } from "../server/shared/pipeline-chat.ts";
import { summarize, time } from "./_stats.ts";

function longSession(turns: number): ExportSession {
  const out: ChatTurn[] = [];
  const sources = Array.from({ length: 5 }, (_, i) => ({
    id: i + 1,
    title: `Passage ${i + 1}`,
    content: `Passage ${i + 1}: ${"some retrieved text about the question ".repeat(20)}`,
  }));
  for (let i = 0; i < turns; i++) {
    const at = new Date(Date.UTC(2026, 0, 1, 0, i));
    out.push({
      uid: `q${i}`,
      role: "user",
      body: `Question ${i}: what does passage ${(i % 5) + 1} say?`,
      status: "done",
      mode: null,
      runUid: null,
      sources: [],
      error: null,
      createdAt: at,
    });
    out.push({
      uid: `a${i}`,
      role: "assistant",
      body: `${"It says this [1] and that [2, 3]. ".repeat(8)}\nIn short [5].`,
      status: "done",
      mode: i === 0 ? "pipeline" : "conversation",
      runUid: null,
      sources,
      error: null,
      createdAt: at,
    });
  }
  return {
    title: "Long session",
    pipelineTitle: "RAG with citations",
    createdBy: "Ada",
    createdAt: new Date(),
    turns: out,
  };
}

export default async function bench() {
  const entries = galleryEntries();
  const cards = summarize(
    await time(5, () =>
      Promise.all(entries.map((e) => inspectPipeline(e.source, { file: `${e.key}.yaml`, parameters: e.parameters }))),
    ),
  );
  const capabilities = summarize(
    await time(5, () => Promise.all(entries.map((e) => chatCapability({ name: e.key, ...e })))),
  );
  const session = longSession(100);
  const json = summarize(await time(20, async () => JSON.stringify(session)));
  const markdown = summarize(await time(20, async () => sessionMarkdown(session)));
  const docx = summarize(await time(10, () => sessionDocx(session)));
  const docxBytes = (await sessionDocx(session)).length;
  const past: PastTurn[] = session.turns.map((t) => ({
    role: t.role,
    body: t.body,
    status: t.status,
    mode: t.mode,
    sources: t.sources,
  }));
  const history = summarize(await time(50, async () => historyMessages(past, "And then?", past[1]!.sources)));
  return {
    galleryPipelines: entries.length,
    "baseline: inspect every gallery pipeline (ms)": cards,
    "which gallery pipelines can chat (ms)": capabilities,
    sessionTurns: 100,
    "baseline: JSON.stringify the session (ms)": json,
    "export Markdown (ms)": markdown,
    "export .docx (ms)": docx,
    docxBytes,
    "follow-up history over the session (ms)": history,
  };
}
