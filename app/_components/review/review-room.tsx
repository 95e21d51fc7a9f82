"use client";
/**
 * The body of a review's room, one component for both pages that show it: the review page (members
 * and viewers) and a share link's page (spectators). Findings first: facts and progress, steering
 * while an agent runs, then the report (summary, scores, noise control, findings with their team
 * votes and threads, files at risk) beside the agent's live activity, and the team chat (and the
 * conversations with Argus) in a side column. On a phone the same order reads top to bottom:
 * findings before the activity, the chat last. A review without activity (the static engine) gives
 * the report the whole main column: no empty column beside the chat.
 *
 * Who is looking comes from the RoomAccess context (app/_lib/room.ts): its socket, its user, and for a
 * spectator why the controls are off. Page-level actions (cancel, re-run, delete, exports, marking
 * false positives, sharing) and the replay's scrubber and Follow stay with the page that offers them;
 * a replayed moment comes in as `moment` and stands for the room's events.
 *
 * Conversations with Argus (a completed review's panel, "Ask about this finding") are offered only
 * where the page asks for them (`asking`) and never to a spectator: the server refuses share links
 * every `ask.*` procedure.
 */
import type { UseQueryResult } from "@tanstack/react-query";
import { type ReactNode, useCallback, useMemo } from "react";
import { type RoomState, useRoomAccess } from "@/app/_lib/room.ts";
import { errorInfo } from "@/app/_lib/trpc.ts";
import type { Focus, PresentMember } from "@/server/shared/room-presence.ts";
import type { RoomName } from "@/server/shared/rooms.ts";
import { describeStages } from "@/server/shared/stages.ts";
import { foldTeamEvents } from "@/server/shared/team-state.ts";
import { confirmedByTeam, teamVerdict } from "@/server/shared/team-verdicts.ts";
import { reportedFingerprints } from "@/server/shared/replay.ts";
import { AskAboutFinding } from "../ask/ask-about-finding.tsx";
import { ConversationsPanel } from "../ask/conversations-panel.tsx";
import { ChatPanel } from "../rooms/chat-panel.tsx";
import { FindingTeam, TeamBadges } from "../rooms/finding-team.tsx";
import { WatchersOf } from "../rooms/presence-bar.tsx";
import { SteeringBar } from "../rooms/steering-bar.tsx";
import { ReviewProgress } from "./review-progress.tsx";
import { Card, DelayedSkeleton, ErrorNotice, cx } from "../ui.tsx";
import { ActivityLog, ActivityPanel } from "./activity-panel.tsx";
import type { CodeLink } from "./code-ref-links.ts";
import { FilesAtRisk } from "./files-at-risk.tsx";
import { FindingsList } from "./findings-list.tsx";
import { codeHref } from "./format.ts";
import { Markdown } from "./markdown.tsx";
import { ReviewMeta, ReviewScores } from "./review-meta.tsx";
import { isActive, type ReviewEvent, type ReviewFindingRow, type SharedReview } from "./types.ts";

export interface ReviewRoomProps {
  review: SharedReview;
  roomName: RoomName<"review"> | null;
  /** The review's room, joined once by the page (activity, chat, threads and votes share it). */
  room: RoomState<"review">;
  presence: { members: PresentMember[]; setFocus(focus: Focus | null): void };
  /** The review's findings (loaded once it completed). */
  findings: Pick<UseQueryResult<ReviewFindingRow[], unknown>, "data" | "isPending" | "isError" | "error" | "refetch">;
  /** Members and owners vote, resolve and steer. */
  canEdit: boolean;
  /** The code viewer the review's paths link to; null where there is none (a share link's page). */
  code: { projectUid: string; snapshotUid: string | null } | null;
  /** Reads the room's log when the socket cannot connect (default: reviews.events). */
  poll?: (afterSeq: number) => Promise<ReviewEvent[]>;
  /** Shown above the report's summary (the review page's exports). */
  reportActions?: ReactNode;
  /** Marking findings false positive (members, on the review page). */
  dismissal?: { pending: string | null; onDismiss(f: ReviewFindingRow, dismissed: boolean): void };
  /**
   * A replayed moment of a finished review: its events stand for the room's (activity, team marks),
   * and until its end only the findings reported by then show. Absent: the room as it is. `loading`:
   * the log is still being read (the activity says so; the room's events stand meanwhile).
   */
  moment?: { events: readonly ReviewEvent[]; atEnd: boolean; loading?: boolean } | null;
  /** Above the activity and the chat (the replay's scrubber). */
  beforeActivity?: ReactNode;
  /** In the activity's header (Follow). */
  activityActions?: ReactNode;
  /** Below the activity (the followed code). */
  activityFooter?: ReactNode;
  /** Offer conversations with Argus about the review (the review page; never a share link). */
  asking?: boolean;
  /** A finding a link points at (`?finding=<fingerprint>`, from the inbox): opened and scrolled to. */
  linkedFinding?: string | null;
}

export function ReviewRoom({
  review: r,
  roomName,
  room,
  presence,
  findings,
  canEdit,
  code,
  poll,
  reportActions,
  dismissal,
  moment,
  beforeActivity,
  activityActions,
  activityFooter,
  asking = false,
  linkedFinding,
}: ReviewRoomProps) {
  const { selfId, readOnly } = useRoomAccess();
  const live = isActive(r.status);
  const report = r.report;
  const codeLink: CodeLink | undefined = useMemo(
    () =>
      code
        ? (path: string, line: number, endLine?: number) =>
            codeHref(code.projectUid, code.snapshotUid, path, line, endLine)
        : undefined,
    [code],
  );
  // The findings as loaded, brought up to date by the room's votes, resolutions, threads and marks.
  // At a replayed moment: the findings the agent had reported by then, with the team's marks of then.
  const shownEvents = moment && !moment.loading ? moment.events : room.events;
  const teamState = useMemo(() => foldTeamEvents(shownEvents), [shownEvents]);
  const reported = useMemo(
    () => (moment && !moment.atEnd ? reportedFingerprints(shownEvents) : null),
    [moment, shownEvents],
  );
  const allFindings = findings.data ?? [];
  const teamFindings = useMemo(
    () =>
      (findings.data ?? [])
        .filter((f) => !reported || reported.has(f.fingerprint))
        .map((f) => ({ ...f, ...teamState.get(f.fingerprint) })),
    [findings.data, teamState, reported],
  );
  const confirmed = useMemo(() => confirmedByTeam(teamFindings), [teamFindings]);
  // Asking needs the code viewer (citations link to it) and an account: spectators never ask.
  const ask = asking && !readOnly && code && codeLink ? { projectUid: code.projectUid, link: codeLink } : null;
  const { setFocus } = presence;
  const lookAtActivity = useCallback(() => setFocus({ kind: "activity" }), [setFocus]);
  // An agent's activity (live or replayed) stands beside the findings; the static engine has none.
  const hasActivity = live || r.engine === "agent";

  const reportBody = report && (
    <>
      {reportActions}
      <section className="mb-6" aria-labelledby="summary-heading">
        <h2 id="summary-heading" className="mb-2 text-sm font-semibold uppercase tracking-wide text-zinc-500">
          Summary
        </h2>
        <Card className="px-4 py-2">
          <Markdown>{report.summary}</Markdown>
          {report.notes.length > 0 && (
            <ul className="mb-2 list-disc pl-5 text-xs text-zinc-500">
              {report.notes.map((n, i) => (
                <li key={i}>{n}</li>
              ))}
            </ul>
          )}
        </Card>
      </section>
      <section className="mb-6">
        <ReviewScores report={report} />
        <p className="mt-2 text-xs text-zinc-500" aria-label="Noise control">
          Noise control: {describeStages(report.stages)}
        </p>
      </section>
      <section className="mb-8" aria-labelledby="findings-heading">
        <h2 id="findings-heading" className="mb-3 text-sm font-semibold uppercase tracking-wide text-zinc-500">
          Findings
        </h2>
        {findings.isPending && <DelayedSkeleton rows={4} />}
        {findings.isError && (
          <ErrorNotice message={errorInfo(findings.error).message} onRetry={() => void findings.refetch()} />
        )}
        {findings.data && reported && (
          <p className="mb-2 text-sm text-zinc-600 dark:text-zinc-400" aria-label="Findings at this moment">
            At this moment of the replay the agent had reported {teamFindings.length} of {allFindings.length} findings.
          </p>
        )}
        {findings.data && (
          <p className="mb-2 text-sm text-zinc-600 dark:text-zinc-400" aria-label="Confirmed by the team">
            Confirmed by the team: {confirmed.confirmed} of {confirmed.judged} judged
            {confirmed.judged < teamFindings.length ? ` (${teamFindings.length} findings)` : ""}
          </p>
        )}
        {findings.data && (
          <FindingsList
            findings={teamFindings}
            projectUid={code?.projectUid ?? null}
            snapshotUid={code?.snapshotUid ?? null}
            canEdit={canEdit && !!dismissal}
            pending={dismissal?.pending ?? null}
            onDismiss={(f, d) => dismissal?.onDismiss(f, d)}
            onOpen={(f) => setFocus({ kind: "finding", fingerprint: f.fingerprint })}
            linked={linkedFinding}
            rowExtras={(f) => (
              <>
                <WatchersOf
                  members={presence.members.filter(
                    (m) => m.userId !== selfId && m.focus?.kind === "finding" && m.focus.fingerprint === f.fingerprint,
                  )}
                />
                <TeamBadges f={f} />
              </>
            )}
            details={(f) =>
              roomName && (
                <>
                  {ask && canEdit && <AskAboutFinding reviewUid={r.uid} fingerprint={f.fingerprint} />}
                  <FindingTeam
                    room={roomName}
                    state={room}
                    finding={f}
                    findings={teamFindings}
                    canVote={canEdit}
                    codeLink={codeLink}
                  />
                </>
              )
            }
            teamVerdictOf={(f) => teamVerdict(f.votes) ?? "unjudged"}
            emptyNote={
              reported ? "The agent had not reported any finding yet at this moment of the replay." : undefined
            }
          />
        )}
      </section>
      <section className="mb-8" aria-labelledby="files-heading">
        <h2 id="files-heading" className="mb-3 text-sm font-semibold uppercase tracking-wide text-zinc-500">
          Files at risk
        </h2>
        <FilesAtRisk
          files={r.files.length ? r.files : report.files}
          projectUid={code?.projectUid ?? null}
          snapshotUid={code?.snapshotUid ?? null}
        />
      </section>
    </>
  );

  return (
    <>
      <Card className="mb-6 p-4">
        <ReviewMeta review={r} />
        {r.status === "running" && <ReviewProgress review={r} room={room} />}
        {r.statusReason && (r.status === "failed" || r.status === "cancelled") && (
          <p
            className={
              r.status === "failed" ? "mt-3 text-sm text-red-700 dark:text-red-400" : "mt-3 text-sm text-zinc-500"
            }
          >
            {r.statusReason}
          </p>
        )}
      </Card>

      {roomName && live && r.engine === "agent" && (
        <div className="mb-4">
          <SteeringBar room={roomName} state={room} steering={r.steering} canSteer={canEdit} />
        </div>
      )}
      {r.steering.stopRequested && !live && (
        <p className="-mt-2 mb-4 text-sm text-zinc-600" role="note">
          Stopped early by {r.steering.stopRequested.by.name}: the report covers what was explored until then.
        </p>
      )}
      {beforeActivity}
      <div className={cx("grid gap-6", roomName && "lg:grid-cols-[minmax(0,1fr)_minmax(18rem,22rem)]")}>
        <div
          className={cx(
            "min-w-0",
            hasActivity && "grid gap-6 xl:grid-cols-[minmax(0,3fr)_minmax(0,2fr)] xl:items-start",
          )}
        >
          <div className="min-w-0" data-testid="review-main">
            {reportBody}
            {!report && r.status === "completed" && (
              <ErrorNotice message="This review completed without a stored report." />
            )}
            {!report && live && (
              <p className="mb-6 text-sm text-zinc-500" role="note">
                The findings and the report show here as soon as the review ends.
              </p>
            )}
          </div>
          {hasActivity && (
            <div className="min-w-0 xl:sticky xl:top-4" onMouseEnter={lookAtActivity}>
              {moment ? (
                <ActivityLog
                  events={moment.events}
                  live={false}
                  streaming={false}
                  actions={activityActions}
                  loading={moment.loading}
                />
              ) : (
                <ActivityPanel reviewUid={r.uid} live={live} room={room} poll={poll} actions={activityActions} />
              )}
              {activityFooter}
            </div>
          )}
        </div>
        {roomName && (
          <aside className="min-w-0 space-y-6 lg:sticky lg:top-4 lg:self-start" aria-label="Team chat and questions">
            <ChatPanel room={roomName} state={room} codeLink={codeLink} />
            {ask && r.status === "completed" && (
              <ConversationsPanel
                projectUid={ask.projectUid}
                reviewUid={r.uid}
                state={room}
                codeHref={ask.link}
                className="block"
              />
            )}
          </aside>
        )}
      </div>
    </>
  );
}
