"use client";
/**
 * The team on one finding: the votes (real / false positive / won't fix / duplicate of …) with who
 * gave them, one's own vote as toggles, resolve / reopen, and the finding's thread. Members vote and
 * resolve; viewers see the votes and can talk in the thread; spectators (share links) only read.
 */
import { useState } from "react";
import { type RoomState, useRoomAccess } from "@/app/_lib/room.ts";
import type { RoomName } from "@/server/shared/rooms.ts";
import { teamVerdict, type Verdict, VERDICT_LABEL, VERDICTS, type Vote } from "@/server/shared/team-verdicts.ts";
import type { CodeLink } from "../review/code-ref-links.ts";
import type { ReviewFindingRow } from "../review/types.ts";
import { Badge, Button, cx } from "../ui.tsx";
import { ChatPanel } from "./chat-panel.tsx";
import { DuplicatePicker } from "./duplicate-picker.tsx";
import { ackErrorText } from "@/server/shared/ack-text.ts";
import type { Ack } from "@/server/shared/room-protocol.ts";

const TIMEOUT_MS = 10_000;

/** "2 real · 1 false positive". */
export function tally(votes: readonly Vote[]): string {
  return VERDICTS.map((v) => [v, votes.filter((x) => x.verdict === v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${n} ${VERDICT_LABEL[v]}`)
    .join(" · ");
}

/** Thread size, votes, verdict and resolution, small, for a finding's row. */
export function TeamBadges({ f }: { f: ReviewFindingRow }) {
  const verdict = teamVerdict(f.votes);
  return (
    <>
      {f.threadCount > 0 && (
        <span className="text-zinc-500" title="Messages in the thread">
          {f.threadCount} {f.threadCount === 1 ? "reply" : "replies"}
        </span>
      )}
      {f.votes.length > 0 && (
        <Badge tone={verdict === "real" ? "green" : verdict === "false_positive" ? "amber" : undefined}>
          <span title={tally(f.votes)}>
            {verdict ? `team: ${VERDICT_LABEL[verdict]}` : "team: split"} ({f.votes.length})
          </span>
        </Badge>
      )}
      {f.resolvedAt && <Badge tone="green">resolved</Badge>}
    </>
  );
}

export function FindingTeam({
  room,
  state,
  finding: f,
  findings,
  canVote,
  codeLink,
}: {
  room: RoomName<"review">;
  state: RoomState<"review">;
  finding: ReviewFindingRow;
  /** The review's findings, for "duplicate of". */
  findings: readonly ReviewFindingRow[];
  canVote: boolean;
  codeLink?: CodeLink;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { socket, selfId, readOnly } = useRoomAccess();
  const mine = f.votes.find((v) => v.userId === selfId);

  async function send(call: () => Promise<Ack>) {
    setBusy(true);
    try {
      const r = await call();
      setError(r.ok ? null : ackErrorText(r));
    } catch {
      setError("No answer from the server; check your connection.");
    } finally {
      setBusy(false);
    }
  }
  const s = () => socket().timeout(TIMEOUT_MS);
  const vote = (verdict: Verdict | null, duplicateOf?: string) =>
    send(() =>
      s().emitWithAck("finding.vote", {
        room,
        fingerprint: f.fingerprint,
        verdict,
        ...(duplicateOf ? { duplicateOf } : {}),
      }),
    );

  return (
    <section className="space-y-2 rounded-md border border-zinc-200 p-3 dark:border-zinc-800" aria-label="Team">
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <span className="font-semibold uppercase tracking-wide text-zinc-500">Team</span>
        <span className="text-zinc-600 dark:text-zinc-400">{f.votes.length ? tally(f.votes) : "no votes yet"}</span>
        {f.resolvedAt && <span className="text-green-700">resolved{f.resolvedBy ? ` by ${f.resolvedBy}` : ""}</span>}
      </div>
      {f.votes.length > 0 && (
        <ul className="text-xs text-zinc-500">
          {f.votes.map((v) => (
            <li key={v.userId}>
              {v.name}: {VERDICT_LABEL[v.verdict]}
              {v.duplicateOf &&
                ` of ${findings.find((x) => x.fingerprint === v.duplicateOf)?.title ?? "another finding"}`}
            </li>
          ))}
        </ul>
      )}
      {readOnly && <p className="text-xs text-zinc-500">{readOnly}</p>}
      {canVote && (
        <div className="flex flex-wrap items-center gap-1.5" role="group" aria-label="Your verdict">
          {VERDICTS.filter((v) => v !== "duplicate").map((v) => (
            <button
              key={v}
              type="button"
              disabled={busy}
              aria-pressed={mine?.verdict === v}
              onClick={() => void vote(mine?.verdict === v ? null : v)}
              className={cx(
                "rounded-md border px-2 py-1 text-xs",
                mine?.verdict === v
                  ? "border-brand-500 bg-brand-50 text-brand-800 dark:bg-brand-900/30 dark:text-brand-100"
                  : "border-zinc-300 dark:border-zinc-700",
              )}
            >
              {VERDICT_LABEL[v]}
            </button>
          ))}
          <DuplicatePicker
            findings={findings}
            self={f.fingerprint}
            value={mine?.verdict === "duplicate" ? (mine.duplicateOf ?? null) : null}
            disabled={busy}
            onChange={(fp) => void vote(fp ? "duplicate" : null, fp ?? undefined)}
          />
          <Button
            variant="secondary"
            className="ml-auto px-2 py-1 text-xs"
            busy={busy}
            onClick={() =>
              void send(() =>
                s().emitWithAck("finding.resolve", { room, fingerprint: f.fingerprint, resolved: !f.resolvedAt }),
              )
            }
          >
            {f.resolvedAt ? "Reopen" : "Resolve"}
          </Button>
        </div>
      )}
      {error && (
        <p className="text-xs text-red-700" role="alert">
          {error}
        </p>
      )}
      <ChatPanel room={room} state={state} thread={f.fingerprint} title="Thread" codeLink={codeLink} className="p-3" />
    </section>
  );
}
