/**
 * Shared by the router tests: one real server per test file, with a workspace whose owner (Olivia)
 * invited a member (Mia) and a viewer (Vic). Await it at the top level of the test file; the server
 * stops after the file's last test.
 */
import { afterAll } from "vitest";
import {
  inviteAndSignUp,
  signUp,
  startTestServer,
  type TestServer,
  type TestUser,
} from "../../../test/helpers/server.ts";

export interface ServerWithTeam {
  server: TestServer;
  owner: TestUser;
  member: TestUser;
  viewer: TestUser;
}

export async function startServerWithTeam(): Promise<ServerWithTeam> {
  const server = await startTestServer();
  // Registered before the sign-ups, so a failing sign-up still stops the server.
  afterAll(() => server.stop());
  const owner = await signUp(server.url, { name: "Olivia" });
  const [member, viewer] = await Promise.all([
    inviteAndSignUp(owner, "member", "Mia"),
    inviteAndSignUp(owner, "viewer", "Vic"),
  ]);
  return { server, owner, member, viewer };
}
