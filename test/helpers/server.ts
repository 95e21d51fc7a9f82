/**
 * The real Argus server (API only, no UI) on port 0 against a throwaway database, plus a tiny
 * fetch-based client that speaks tRPC over HTTP the way the browser does (no batching, no transformer).
 */
import { randomUUID } from "node:crypto";
import { startServer, type RunningServer } from "../../server/main.ts";
import type { Role } from "../../server/auth/roles.ts";
import { createTestConfig, TEST_SETUP_TOKEN, type TestConfig } from "./db.ts";

export interface TestServer extends RunningServer {
  db: TestConfig;
  /** Stops the server and drops its database. */
  stop(): Promise<void>;
}

export async function startTestServer(db?: TestConfig): Promise<TestServer> {
  const testDb = db ?? (await createTestConfig());
  let server: RunningServer;
  try {
    server = await startServer({ config: testDb.config, ui: false });
  } catch (err) {
    await testDb.cleanup();
    throw err;
  }
  return {
    ...server,
    db: testDb,
    async stop() {
      try {
        await server.close();
      } finally {
        await testDb.cleanup();
      }
    },
  };
}

export interface TrpcError {
  message: string;
  code: number;
  data: {
    code: string;
    httpStatus: number;
    path?: string;
    issues?: { path: string[]; message: string }[];
    fieldErrors?: Record<string, string[]>;
  };
}

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  /** result.data on success. */
  data: T;
  /** The tRPC error object on failure. */
  error: TrpcError | undefined;
  body: unknown;
}

/** `name=value` parts of Set-Cookie headers, joined for a Cookie request header. */
export function cookieFrom(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!.trim())
    .filter((c) => !c.endsWith("=")) // a cleared cookie
    .join("; ");
}

export class Client {
  constructor(
    public readonly baseUrl: string,
    public cookie = "",
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.cookie ? { cookie: this.cookie } : {}), ...extra };
  }

  private async reply<T>(res: Response): Promise<Reply<T>> {
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const b = body as { result?: { data?: T }; error?: TrpcError };
    return { status: res.status, headers: res.headers, data: b?.result?.data as T, error: b?.error, body };
  }

  async query<T = unknown>(path: string, input?: unknown): Promise<Reply<T>> {
    const qs = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
    return this.reply<T>(await fetch(`${this.baseUrl}/api/trpc/${path}${qs}`, { headers: this.headers() }));
  }

  async mutate<T = unknown>(path: string, input?: unknown): Promise<Reply<T>> {
    const res = await fetch(`${this.baseUrl}/api/trpc/${path}`, {
      method: "POST",
      headers: this.headers({ "content-type": "application/json" }),
      body: input === undefined ? undefined : JSON.stringify(input),
    });
    return this.reply<T>(res);
  }

  /** Like query/mutate but throws unless the call succeeded. */
  async ok<T = unknown>(kind: "query" | "mutate", path: string, input?: unknown): Promise<T> {
    const r = kind === "query" ? await this.query<T>(path, input) : await this.mutate<T>(path, input);
    if (r.status !== 200) throw new Error(`${path} → ${r.status}: ${JSON.stringify(r.body)}`);
    return r.data;
  }
}

export interface TestUser {
  client: Client;
  userId: string;
  email: string;
  password: string;
  workspaceId: string;
  role: Role;
}

let counter = 0;
export const uniqueEmail = (label = "user") =>
  `${label.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${Date.now().toString(36)}-${counter++}@example.test`;
export const PASSWORD = "correct horse battery";

/**
 * account.signUp; throws unless it succeeded. The returned client carries the session cookie.
 * Without an invite token it sends the test servers' setup token (the first owner needs it).
 */
export async function signUp(
  baseUrl: string,
  opts: { name?: string; email?: string; password?: string; inviteToken?: string; setupToken?: string } = {},
): Promise<TestUser> {
  const email = opts.email ?? uniqueEmail(opts.name ?? "user");
  const password = opts.password ?? PASSWORD;
  const anon = new Client(baseUrl);
  const r = await anon.mutate<{ workspaceId: string; role: Role }>("account.signUp", {
    name: opts.name ?? "Test User",
    email,
    password,
    ...(opts.inviteToken ? { inviteToken: opts.inviteToken } : { setupToken: opts.setupToken ?? TEST_SETUP_TOKEN }),
  });
  if (r.status !== 200) throw new Error(`sign-up failed ${r.status}: ${JSON.stringify(r.body)}`);
  const client = new Client(baseUrl, cookieFrom(r.headers));
  const me = await client.ok<{ user: { id: string } }>("query", "account.me");
  return { client, userId: me.user.id, email, password, workspaceId: r.data.workspaceId, role: r.data.role };
}

/** better-auth's email sign-in; returns the raw response and a client with the new session cookie. */
export async function signIn(baseUrl: string, email: string, password: string) {
  const res = await fetch(`${baseUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ email, password }),
  });
  return { res, client: new Client(baseUrl, cookieFrom(res.headers)) };
}

/** Owner creates an invite (tRPC) and a new user signs up with it. */
export async function inviteAndSignUp(
  owner: TestUser,
  role: Exclude<Role, "owner">,
  name: string = role,
): Promise<TestUser> {
  const invite = await owner.client.ok<{ token: string }>("mutate", "account.createInvite", {
    workspaceId: owner.workspaceId,
    role,
  });
  return signUp(owner.client.baseUrl, { name, inviteToken: invite.token });
}

/**
 * A separate workspace with its own owner (who is not a member of any other workspace): the workspace
 * and an invite are written directly, then the user signs up through the real flow. Works on an empty
 * install too, so tests need not create the first owner through the setup flow.
 */
export async function signUpInNewWorkspace(server: RunningServer, name = "Stranger"): Promise<TestUser> {
  const { db } = server.services;
  const ws = await db.workspace.create({ data: { name: `${name}'s workspace` } });
  const invite = await db.invite.create({
    data: {
      token: `test-${randomUUID()}`,
      workspaceId: ws.id,
      role: "member",
      createdById: "test-helper",
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  });
  const user = await signUp(server.url, { name, inviteToken: invite.token });
  await db.membership.update({
    where: { workspaceId_userId: { workspaceId: ws.id, userId: user.userId } },
    data: { role: "owner" },
  });
  return { ...user, role: "owner" };
}
