"use client";
/**
 * A review's findings as the room shows them: as loaded, brought up to date by the room's votes,
 * resolutions, threads and marks — or, at a replayed moment, the findings the agent had reported by
 * then with the team's marks of then — and how many of them the team confirmed.
 */
import { useMemo } from "react";
import { reportedFingerprints } from "@/server/shared/replay.ts";
import { foldTeamEvents } from "@/server/shared/team-state.ts";
import { confirmedByTeam } from "@/server/shared/team-verdicts.ts";
import type { ReviewRoomProps } from "./review-room-props.ts";

export function useTeamFindings(
  rows: ReviewRoomProps["findings"]["data"],
  room: ReviewRoomProps["room"],
  moment: ReviewRoomProps["moment"],
) {
  const shownEvents = moment && !moment.loading ? moment.events : room.events;
  const teamState = useMemo(() => foldTeamEvents(shownEvents), [shownEvents]);
  /** At a moment before the replay's end: the fingerprints reported by then (null: all of them). */
  const reported = useMemo(
    () => (moment && !moment.atEnd ? reportedFingerprints(shownEvents) : null),
    [moment, shownEvents],
  );
  const teamFindings = useMemo(
    () =>
      (rows ?? [])
        .filter((f) => !reported || reported.has(f.fingerprint))
        .map((f) => ({ ...f, ...teamState.get(f.fingerprint) })),
    [rows, teamState, reported],
  );
  const confirmed = useMemo(() => confirmedByTeam(teamFindings), [teamFindings]);
  return { teamFindings, reported, confirmed };
}
