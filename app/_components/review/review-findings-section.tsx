"use client";
/**
 * The findings in a review's room: how many the agent had reported at a replayed moment, how many the
 * team confirmed, and the list with who is looking at each, the team's badges, votes and threads, and
 * (where the page offers it) asking Argus about one.
 */
import { useRoomAccess } from "@/app/_lib/room.ts";
import { errorInfo } from "@/app/_lib/trpc.ts";
import { teamVerdict } from "@/server/shared/team-verdicts.ts";
import { AskAboutFinding } from "../ask/ask-about-finding.tsx";
import { FindingTeam, TeamBadges } from "../rooms/finding-team.tsx";
import { WatchersOf } from "../rooms/presence-bar.tsx";
import { DelayedSkeleton, ErrorNotice } from "../ui.tsx";
import type { CodeLink } from "./code-ref-links.ts";
import { FindingsList } from "./findings-list.tsx";
import type { ReviewRoomProps } from "./review-room-props.ts";
import type { useTeamFindings } from "./use-team-findings.ts";

export function ReviewFindingsSection({
  reviewUid,
  roomName,
  room,
  presence,
  findings,
  team: { teamFindings, reported, confirmed },
  canEdit,
  code,
  codeLink,
  dismissal,
  linkedFinding,
  askAbout,
}: Pick<
  ReviewRoomProps,
  "roomName" | "room" | "presence" | "findings" | "canEdit" | "code" | "dismissal" | "linkedFinding"
> & {
  reviewUid: string;
  /** The findings as the room shows them (use-team-findings.ts). */
  team: ReturnType<typeof useTeamFindings>;
  codeLink: CodeLink | undefined;
  /** Offer "Ask about this finding" (to members). */
  askAbout: boolean;
}) {
  const { selfId } = useRoomAccess();
  const { setFocus } = presence;
  const allFindings = findings.data ?? [];
  return (
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
                {askAbout && canEdit && <AskAboutFinding reviewUid={reviewUid} fingerprint={f.fingerprint} />}
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
          emptyNote={reported ? "The agent had not reported any finding yet at this moment of the replay." : undefined}
        />
      )}
    </section>
  );
}
