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
import { useCallback, useMemo } from "react";
import { useRoomAccess } from "@/app/_lib/room.ts";
import { ConversationsPanel } from "../ask/conversations-panel.tsx";
import { ChatPanel } from "../rooms/chat-panel.tsx";
import { SteeringBar } from "../rooms/steering-bar.tsx";
import { ReviewProgress } from "./progress-bar.tsx";
import { Card, ErrorNotice, cx } from "../ui.tsx";
import { ActivityLog, ActivityPanel } from "./activity-panel.tsx";
import type { CodeLink } from "./code-ref-links.ts";
import { codeHref } from "./format.ts";
import { ReviewFindingsSection } from "./review-findings-section.tsx";
import { ReviewMeta } from "./review-meta.tsx";
import { ReviewReport } from "./review-report.tsx";
import { isActive } from "./types.ts";
import { useTeamFindings } from "./use-team-findings.ts";
import type { ReviewRoomProps } from "./review-room-props.ts";

export type { ReviewRoomProps };

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
  const { readOnly } = useRoomAccess();
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
  const team = useTeamFindings(findings.data, room, moment);
  // Asking needs the code viewer (citations link to it) and an account: spectators never ask.
  const ask = asking && !readOnly && code && codeLink ? { projectUid: code.projectUid, link: codeLink } : null;
  const { setFocus } = presence;
  const lookAtActivity = useCallback(() => setFocus({ kind: "activity" }), [setFocus]);
  // An agent's activity (live or replayed) stands beside the findings; the static engine has none.
  const hasActivity = live || r.engine === "agent";

  const reportBody = report && (
    <ReviewReport review={r} report={report} code={code} actions={reportActions}>
      <ReviewFindingsSection
        reviewUid={r.uid}
        roomName={roomName}
        room={room}
        presence={presence}
        findings={findings}
        team={team}
        canEdit={canEdit}
        code={code}
        codeLink={codeLink}
        dismissal={dismissal}
        linkedFinding={linkedFinding}
        askAbout={!!ask}
      />
    </ReviewReport>
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
