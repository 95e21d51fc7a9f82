/**
 * What a review room's log says about each finding now: the latest votes, resolution, thread size and
 * false-positive mark it carried. Each of those events carries the whole state of its part, so the
 * last one wins — laid over the findings as loaded, it brings them up to date whatever the order.
 */
import type { RoomEvent } from "./room-events.ts";
import type { Vote } from "./team-verdicts.ts";

export interface FindingTeamState {
  votes?: Vote[];
  resolvedAt?: string | null;
  resolvedBy?: string | null;
  threadCount?: number;
  dismissed?: boolean;
}

export function foldTeamEvents(events: readonly RoomEvent<"review">[]): Map<string, FindingTeamState> {
  const out = new Map<string, FindingTeamState>();
  const at = (fp: string) => {
    let s = out.get(fp);
    if (!s) out.set(fp, (s = {}));
    return s;
  };
  for (const e of events) {
    switch (e.type) {
      case "finding_votes":
        at(e.payload.fingerprint).votes = e.payload.votes;
        break;
      case "finding_resolved":
        Object.assign(at(e.payload.fingerprint), {
          resolvedAt: e.payload.resolved ? e.payload.at : null,
          resolvedBy: e.payload.resolved ? e.payload.by.name : null,
        });
        break;
      case "thread_count":
        at(e.payload.fingerprint).threadCount = e.payload.count;
        break;
      case "finding_dismissed":
      case "finding_restored":
        at(e.payload.fingerprint).dismissed = e.type === "finding_dismissed";
        break;
    }
  }
  return out;
}
