/** The finding messages of the room protocol (votes, resolve), handed to server/review/team.ts. */
import type { FindingTeam } from "../review/index.ts";
import type { Handlers } from "./protocol.ts";

export function teamHandlers(team: FindingTeam): Pick<Handlers, "finding.vote" | "finding.resolve"> {
  return {
    "finding.vote": async (socket, input, room) => ({ votes: await team.vote(socket.data.actor, room!, input) }),
    "finding.resolve": async (socket, input, room) => {
      await team.resolve(socket.data.actor, room!, input);
      return {};
    },
  };
}
