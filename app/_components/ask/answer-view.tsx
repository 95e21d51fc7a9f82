"use client";
/**
 * One answer of Argus: live while it is written (the text so far, each tool call with its arguments
 * and, collapsed, its result, the cost so far), then the final Markdown with its citations as links
 * to the code viewer — a citation whose lines are not in the snapshot is marked, not linked. Search
 * results (no model) say so and point to Settings → Model providers.
 */
import Link from "next/link";
import { useMemo, useRef } from "react";
import type { AskMessage, AskToolCall, Citation } from "@/server/shared/ask.ts";
import { formatCost, formatTokens } from "../review/format.ts";
import { MatchBadge } from "../search-box.tsx";
import { MODEL_PROVIDERS_HREF } from "../model-connections.tsx";
import { Badge, Button } from "../ui.tsx";
import { AnswerText, ANSWER_STATUS, isAnswering } from "./answer-text.tsx";
import type { LiveAnswer } from "./fold.ts";

export type CodeHref = (path: string, line: number, endLine?: number) => string;

function ToolCall({ call }: { call: AskToolCall }) {
  const args = Object.entries(call.input)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
  return (
    <li>
      <details className="text-xs">
        <summary className="cursor-pointer font-mono text-zinc-700 dark:text-zinc-300">
          {call.name}({args}){" "}
          {call.result ? (
            <span className={call.result.isError ? "text-red-700" : "text-zinc-500"}>
              {call.result.isError ? "error" : `${call.result.chars.toLocaleString()} chars`}
            </span>
          ) : (
            <span className="text-zinc-500">running…</span>
          )}
        </summary>
        {call.result && (
          <pre className="mt-1 max-h-48 overflow-auto whitespace-pre-wrap rounded bg-zinc-50 p-2 dark:bg-zinc-900">
            {call.result.preview}
            {call.result.chars > call.result.preview.length ? "\n…" : ""}
          </pre>
        )}
      </details>
    </li>
  );
}

function citationLabel(c: Citation) {
  return `${c.path}:${c.line}${c.endLine > c.line ? `-${c.endLine}` : ""}`;
}

function Citations({ citations, codeHref }: { citations: Citation[]; codeHref: CodeHref }) {
  if (!citations.length) return null;
  return (
    <ul className="mt-2 flex flex-wrap gap-x-3 gap-y-1 text-xs" aria-label="Cited code">
      {citations.map((c) => (
        <li key={citationLabel(c)}>
          {c.status === "ok" ? (
            <Link href={codeHref(c.path, c.line, c.endLine)} className="font-mono text-brand-600 underline">
              {citationLabel(c)}
            </Link>
          ) : (
            <span className="font-mono text-red-700 line-through dark:text-red-400" title="not in this code">
              {citationLabel(c)}
              <span className="ml-1 no-underline">
                ({c.status === "missing_file" ? "no such file in this snapshot" : `the file has ${c.fileLines} lines`})
              </span>
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

export function AnswerView({
  answer,
  live,
  codeHref,
  canAsk,
  onCancel,
  onToFinding,
}: {
  answer: AskMessage;
  live?: LiveAnswer;
  codeHref: CodeHref;
  canAsk: boolean;
  onCancel: () => void;
  /** Opens "Answer → finding" with the reader's selection inside this answer, if any. */
  onToFinding: (selection: string | undefined) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  // Read on mousedown: by the click, pressing the button may have collapsed the selection.
  const picked = useRef<string | undefined>(undefined);
  const active = isAnswering(answer);
  const toolCalls = active ? (live?.toolCalls ?? []) : answer.toolCalls;
  const usage = active ? live?.usage : (answer.usage ?? undefined);
  const cost = active ? live?.costUsd : (answer.costUsd ?? undefined);
  // A citation whose lines are not there is shown, unlinked (an empty href renders as plain text).
  const codeLink = useMemo(() => {
    const bad = new Set(answer.citations.filter((c) => c.status !== "ok").map(citationLabel));
    return (path: string, line: number, endLine?: number) =>
      bad.has(`${path}:${line}${endLine && endLine > line ? `-${endLine}` : ""}`) ? "" : codeHref(path, line, endLine);
  }, [answer.citations, codeHref]);
  const selection = () => {
    const sel = window.getSelection();
    if (!sel || sel.isCollapsed || !box.current?.contains(sel.anchorNode)) return undefined;
    return sel.toString();
  };
  return (
    <div ref={box} data-answer={answer.id} data-status={answer.status} className="min-w-0 flex-1">
      <p className="flex flex-wrap items-center gap-2 text-xs">
        <span className="font-medium text-zinc-800 dark:text-zinc-100">Argus</span>
        <Badge tone={answer.status === "done" ? "green" : active ? "brand" : "amber"}>
          {ANSWER_STATUS[answer.status]}
        </Badge>
        {answer.mode === "search" && <Badge tone="amber">search results, no model</Badge>}
        {answer.model && <span className="text-zinc-500">{answer.model}</span>}
        {/* Search results cost no tokens: no counter beside them. */}
        {usage && answer.mode !== "search" && (
          <span className="text-zinc-500" aria-label="Cost so far">
            {formatTokens(usage.inputTokens + usage.outputTokens)} tokens
            {cost !== undefined ? ` · ${formatCost(cost)}` : ""}
          </span>
        )}
        {canAsk && active && (
          <Button variant="ghost" className="ml-auto px-2 py-0.5 text-xs" onClick={onCancel}>
            Cancel
          </Button>
        )}
      </p>
      {toolCalls.length > 0 && (
        <ol className="mt-1 space-y-0.5" aria-label="Tool calls">
          {toolCalls.map((c) => (
            <ToolCall key={c.id} call={c} />
          ))}
        </ol>
      )}
      <AnswerText answer={answer} live={live} codeLink={codeLink} />
      {answer.mode === "search" && (
        <>
          <ul className="mt-2 space-y-2" aria-label="Search results">
            {answer.hits.map((h) => (
              <li key={`${h.file}:${h.startLine}`} className="text-xs">
                <Link href={codeHref(h.file, h.startLine, h.endLine)} className="font-mono text-brand-600 underline">
                  {h.file}:{h.startLine}-{h.endLine}
                </Link>
                {h.match && <MatchBadge match={h.match} />}
                <pre className="mt-1 max-h-40 overflow-auto rounded bg-zinc-50 p-2 dark:bg-zinc-900">{h.snippet}</pre>
              </li>
            ))}
          </ul>
          <p className="mt-2 text-xs">
            <Link href={MODEL_PROVIDERS_HREF} className="text-brand-600 underline">
              Settings → Model providers
            </Link>{" "}
            — add a model to get answers instead of search results.
          </p>
        </>
      )}
      {answer.error && (
        <p className="mt-1 text-sm text-red-700 dark:text-red-400" role="alert">
          {answer.error}
        </p>
      )}
      {!active && answer.notes.length > 0 && (
        // How the answer came about when it was not the plain way: the forced final answer after the
        // step limit or budget, earlier turns left out to fit the model's context.
        <ul className="mt-1 list-disc pl-5 text-xs text-zinc-500" aria-label="Notes">
          {answer.notes.map((n, i) => (
            <li key={i}>{n}</li>
          ))}
        </ul>
      )}
      {!active && <Citations citations={answer.citations} codeHref={codeHref} />}
      {canAsk && answer.status === "done" && answer.citations.some((c) => c.status === "ok") && (
        <Button
          variant="secondary"
          className="mt-2 px-2 py-1 text-xs"
          onMouseDown={() => (picked.current = selection())}
          onClick={() => onToFinding(picked.current)}
        >
          Answer → finding
        </Button>
      )}
    </div>
  );
}
