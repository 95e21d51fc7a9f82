/** The HTTP surface in front of tRPC: health, the sign-up gate, better-auth sign-in, unknown routes. */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Client,
  PASSWORD,
  signIn,
  signUp,
  startTestServer,
  uniqueEmail,
  type TestServer,
  type TestUser,
} from "../../test/helpers/server.ts";
import { loadBuiltinPrompts } from "../prompts/builtins.ts";
import { version } from "../version.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

/** A raw request, so the path reaches the server exactly as written (fetch normalizes it). */
function rawPost(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const url = new URL(server.url);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: "POST",
        path,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(data),
          origin: server.url,
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

describe("GET /api/health", () => {
  it("reports ok with the database reachable, no Redis (the embedded default), the queue's counts and the app version", async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({
      status: "ok",
      role: "all",
      db: "ok",
      redis: "off",
      queue: { kind: "in-process", waiting: 0, active: 0, failed: 0 },
      version,
    });
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe("unknown routes", () => {
  it("answer 404 with a message when the UI is not served", async () => {
    const res = await fetch(`${server.url}/nothing/here`);
    expect(res.status).toBe(404);
    expect((await res.json()).message).toContain("/nothing/here");
  });

  it("an unknown tRPC procedure is a 404", async () => {
    const r = await new Client(server.url).query("prompts.nope", {});
    expect(r.status).toBe(404);
  });
});

describe("sign-up and sign-in", () => {
  let owner: TestUser;

  it("before anyone signs up, setupState says Argus needs setting up", async () => {
    const r = await new Client(server.url).query<{ needsSetup: boolean; signedIn: boolean }>("account.setupState");
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ needsSetup: true, signedIn: false });
  });

  it("better-auth's own sign-up endpoint is closed (403), even before setup", async () => {
    const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ name: "Sneaky", email: uniqueEmail("sneaky"), password: PASSWORD }),
    });
    expect(res.status).toBe(403);
    expect((await res.json()).message).toMatch(/invite link/);
    expect(await server.services.db.user.count()).toBe(0);
  });

  // (Was a bug: /api/auth/%2e/sign-up/email passed the raw prefix check, better-auth resolved the
  // dot segment and created an account — verified against a running server.)
  it.each([
    "/api/auth/%2e/sign-up/email",
    "/api/auth/%2E/sign-up/email",
    "/api/auth/%252e/sign-up/email",
    "/api/auth/./sign-up/email",
    "/api/auth/x/../sign-up/email",
    "/api/auth/x/%2e%2e/sign-up/email",
    "/api/auth//sign-up/email",
    "/api/auth/sign-up//email",
    "/api/auth/sign-up/email/",
    "/api/auth/sign-up%2femail",
    "/api/auth/sign-up%2Femail",
    "/api/auth/sign-up/email?x=1",
    "/api/auth/Sign-Up/email",
    "/API/AUTH/SIGN-UP/EMAIL",
    "/api/auth/%73ign-up/email",
    "/api/auth\\sign-up\\email",
  ])("no spelling of the sign-up path (%s) creates an account: 403 with what to do", async (path) => {
    const r = await rawPost(path, { name: "Sneaky", email: uniqueEmail("sneaky"), password: PASSWORD });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).message).toMatch(/setup link.*invite link/);
    expect(await server.services.db.user.count()).toBe(0);
  });

  it("better-auth itself refuses its sign-up endpoint to any HTTP request (second line of defence)", async () => {
    // Straight into better-auth's handler, past server/http/handler.ts's path check.
    for (const path of ["/api/auth/sign-up/email", "/api/auth/%2e/sign-up/email"]) {
      const res = await server.services.auth.handler(
        new Request(`${server.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: server.url },
          body: JSON.stringify({ name: "Sneaky", email: uniqueEmail("sneaky"), password: PASSWORD }),
        }),
      );
      expect(res.status).toBe(403);
    }
    expect(await server.services.db.user.count()).toBe(0);
  });

  it("the first sign-up without the setup link, or with a wrong one, is a 403 naming the server log", async () => {
    for (const setupToken of [undefined, "wrong-token-0123456789"]) {
      const r = await new Client(server.url).mutate("account.signUp", {
        name: "Early Bird",
        email: uniqueEmail("early"),
        password: PASSWORD,
        ...(setupToken ? { setupToken } : {}),
      });
      expect(r.status).toBe(403);
      expect(r.error?.message).toMatch(/Open the setup link printed in the server log/);
    }
    expect(await server.services.db.user.count()).toBe(0);
  });

  it("the first sign-up creates the owner, a workspace and its built-in prompts, and signs in", async () => {
    owner = await signUp(server.url, { name: "Ada Lovelace" });
    expect(owner.role).toBe("owner");
    expect(owner.client.cookie).toMatch(/better-auth\.session_token=/);

    const me = await owner.client.ok<{
      user: { email: string; name: string };
      workspaces: { id: string; name: string; role: string }[];
    }>("query", "account.me");
    expect(me.user).toMatchObject({ email: owner.email, name: "Ada Lovelace" });
    expect(me.workspaces).toEqual([{ id: owner.workspaceId, name: "Ada's workspace", role: "owner" }]);

    const prompts = await owner.client.ok<{ name: string; isBuiltin: boolean; isDefault: boolean }[]>(
      "query",
      "prompts.list",
      {
        workspaceId: owner.workspaceId,
      },
    );
    const builtins = loadBuiltinPrompts();
    expect(
      prompts
        .filter((p) => p.isBuiltin)
        .map((p) => p.name)
        .sort(),
    ).toEqual(builtins.map((b) => b.name).sort());
    expect(prompts.filter((p) => p.isDefault).map((p) => p.name)).toEqual(
      builtins.filter((b) => b.isDefault).map((b) => b.name),
    );

    const state = await owner.client.ok("query", "account.setupState");
    expect(state).toEqual({ needsSetup: false, signedIn: true });
  });

  it("a second sign-up without an invite is refused (403) and creates no account", async () => {
    const email = uniqueEmail("second");
    const r = await new Client(server.url).mutate("account.signUp", { name: "Second", email, password: PASSWORD });
    expect(r.status).toBe(403);
    expect(r.error?.message).toMatch(/already set up/);
    expect(r.headers.getSetCookie()).toEqual([]);
    expect(await server.services.db.user.findUnique({ where: { email } })).toBeNull();
  });

  it("better-auth's sign-up endpoint stays closed after setup", async () => {
    const r = await rawPost("/api/auth/sign-up/email", {
      name: "Sneaky",
      email: uniqueEmail("sneaky"),
      password: PASSWORD,
    });
    expect(r.status).toBe(403);
    expect(await server.services.db.user.count()).toBe(1);
  });

  it("signing up again with the owner's email (via an invite) is a 409 that keeps the existing account", async () => {
    const invite = await owner.client.ok<{ token: string }>("mutate", "account.createInvite", {
      workspaceId: owner.workspaceId,
      role: "member",
    });
    const r = await new Client(server.url).mutate("account.signUp", {
      name: "Copy",
      email: owner.email,
      password: PASSWORD,
      inviteToken: invite.token,
    });
    expect(r.status).toBe(409);
    expect(r.error?.message).toMatch(/already exists/);
    expect(await server.services.db.user.count()).toBe(1);
    // The invite was not consumed by the failed attempt.
    const info = await new Client(server.url).ok<{ status: string }>("query", "account.inviteInfo", {
      token: invite.token,
    });
    expect(info.status).toBe("valid");
  });

  it("invalid sign-up input is a 400 naming each field", async () => {
    const r = await new Client(server.url).mutate("account.signUp", {
      name: " ",
      email: "not-an-email",
      password: "short",
    });
    expect(r.status).toBe(400);
    const paths = r.error!.data.issues!.map((i) => i.path.join("."));
    expect(paths.sort()).toEqual(["email", "name", "password"]);
    expect(r.error!.message).toMatch(/^name: /m);
    expect(r.error!.message).toMatch(/^email: Enter a valid email address\./m);
    expect(r.error!.message).toMatch(/^password: Use at least 8 characters\./m);
    expect(r.error!.data.fieldErrors).toHaveProperty("password");
  });

  it("an oversized request body is refused (413) without creating anything", async () => {
    const users = await server.services.db.user.count();
    const res = await fetch(`${server.url}/api/trpc/account.signUp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(3 * 1024 * 1024), email: uniqueEmail("big"), password: "long enough" }),
    });
    expect(res.status).toBe(413);
    expect(await server.services.db.user.count()).toBe(users);
  });

  it("sign-in with the right password returns a working session cookie", async () => {
    const { res, client } = await signIn(server.url, owner.email, owner.password);
    expect(res.status).toBe(200);
    expect(client.cookie).toMatch(/better-auth\.session_token=/);
    const me = await client.ok<{ user: { id: string } }>("query", "account.me");
    expect(me.user.id).toBe(owner.userId);
  });

  it("sign-in with a wrong password is refused and gives no session", async () => {
    const { res, client } = await signIn(server.url, owner.email, "wrong password!");
    expect(res.status).toBe(401);
    expect(client.cookie).toBe("");
    expect((await client.query("account.me")).status).toBe(401);
  });

  // Not tested here: better-auth's origin (CSRF) check. better-auth turns it off by itself whenever
  // process.env.NODE_ENV is "test" (skipOriginCheck defaults to isTest()), which vitest always sets;
  // see the test report.

  it("signing out ends the session", async () => {
    const { client } = await signIn(server.url, owner.email, owner.password);
    const res = await fetch(`${server.url}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie: client.cookie, origin: server.url, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(200);
    expect((await client.query("account.me")).status).toBe(401);
    // The owner's other session is unaffected.
    expect((await owner.client.query("account.me")).status).toBe(200);
  });
});

describe("anonymous access", () => {
  it.each([
    ["query", "prompts.list", { workspaceId: "x" }],
    ["query", "projects.list", { workspaceId: "x" }],
    ["query", "account.me", undefined],
    ["mutate", "prompts.create", { workspaceId: "x", uid: crypto.randomUUID(), name: "n", content: "c" }],
    ["mutate", "account.createInvite", { workspaceId: "x", role: "member" }],
  ] as const)("%s %s → 401", async (kind, path, input) => {
    const client = new Client(server.url);
    const r = kind === "query" ? await client.query(path, input) : await client.mutate(path, input);
    expect(r.status).toBe(401);
    expect(r.error?.message).toBe("Sign in to continue.");
  });

  it("a forged session cookie is treated as signed out", async () => {
    const r = await new Client(server.url, "better-auth.session_token=forged.value").query("account.me");
    expect(r.status).toBe(401);
  });
});
