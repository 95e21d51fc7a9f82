/**
 * What the room ↔ PR feedback needs from the rest of the server (feedback.ts and reaction-votes.ts
 * share it; in a file of its own so neither imports the other for it).
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import type { reviewRoom } from "../shared/rooms.ts";
import type { Verdict } from "../shared/team-verdicts.ts";
import type { Forge } from "./types.ts";

export interface FeedbackDeps {
  db: Db;
  config: Config;
  log: Logger;
  forgeFor: (installationId: string) => Promise<Forge>;
  /** A message in a finding's thread (server/rooms/chat.ts fromForge). */
  say: (room: ReturnType<typeof reviewRoom>, thread: string, authorId: string, body: string) => Promise<unknown>;
  /** A PR person's vote on a finding; null takes it back (server/review/team.ts voteFromForge). */
  vote: (reviewUid: string, fingerprint: string, voterId: string, verdict: Verdict | null) => Promise<unknown>;
}
