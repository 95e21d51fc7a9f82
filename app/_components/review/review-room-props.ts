/** What a review's room (review-room.tsx) is given by the page that shows it; its parts read the same shapes. */
import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { RoomState } from "@/app/_lib/room.ts";
import type { Focus, PresentMember } from "@/server/shared/room-presence.ts";
import type { RoomName } from "@/server/shared/rooms.ts";
import type { ReviewEvent, ReviewFindingRow, SharedReview } from "./types.ts";

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
