/**
 * A real server with one workspace's team for the room tests: an owner and teammates of the roles
 * asked for (written straight to the membership table, as an accepted invite would leave it), room
 * clients opened with their cookies and closed at the end. Call `roomTeam()` at the top of a test
 * file; it registers its own beforeAll / afterAll.
 */
import { afterAll, beforeAll } from "vitest";
import { openRoomClient, type RoomClient } from "./room-client.ts";
import { signUp, signUpInNewWorkspace, startTestServer, type TestServer, type TestUser } from "./server.ts";

export type TeamRole = "member" | "viewer";

export interface RoomTeam<Names extends string> {
  readonly server: TestServer;
  readonly owner: TestUser;
  /** The teammates asked for, by the key they were given. */
  readonly users: Readonly<Record<Names, TestUser>>;
  /** Another user of the owner's workspace, made on demand. */
  teammate(name: string, role: TeamRole): Promise<TestUser>;
  /** A room client signed in as `user`, closed after the file's tests. */
  client(user: TestUser): Promise<RoomClient>;
}

export function roomTeam<Names extends string = never>(
  teammates: Record<Names, readonly [name: string, role: TeamRole]> = {} as Record<Names, never>,
): RoomTeam<Names> {
  let server: TestServer | undefined;
  let owner: TestUser | undefined;
  const users = {} as Record<Names, TestUser>;
  const clients: RoomClient[] = [];
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("roomTeam: used before its beforeAll ran");
    return value;
  };

  const team: RoomTeam<Names> = {
    get server() {
      return started(server);
    },
    get owner() {
      return started(owner);
    },
    users,
    async teammate(name, role) {
      const user = await signUpInNewWorkspace(team.server, name);
      await team.server.services.db.membership.create({
        data: { workspaceId: team.owner.workspaceId, userId: user.userId, role },
      });
      return user;
    },
    async client(user) {
      const c = await openRoomClient(team.server.url, user.client.cookie);
      clients.push(c);
      return c;
    },
  };

  beforeAll(async () => {
    server = await startTestServer();
    owner = await signUp(server.url, { name: "Olga Owner" });
    for (const key of Object.keys(teammates) as Names[]) {
      const [name, role] = teammates[key];
      users[key] = await team.teammate(name, role);
    }
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.stop();
  });
  return team;
}
