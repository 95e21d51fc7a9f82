/**
 * The web edge against the real server: security headers on every kind of response, the Origin
 * check on state-changing routes and on the Socket.IO handshake, the page policy handed to Next.js,
 * and which address the sign-in rate limit counts (TRUSTED_PROXIES).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import {
  PASSWORD,
  signUp,
  startTestServer,
  uniqueEmail,
  type TestServer,
  type TestUser,
} from "../../test/helpers/server.ts";
import { createRequestHandler } from "../http/handler.ts";
import { sampleInput } from "../review/export/testing.ts";
import { API_CSP } from "./security-headers.ts";

let server: TestServer;
let owner: TestUser;
let projectUid: string;
let reviewUid: string;
let baseUid: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server.url, { name: "Edge Owner" });
  projectUid = crypto.randomUUID();
  await owner.client.ok("mutate", "projects.create", { workspaceId: owner.workspaceId, uid: projectUid, name: "Edge" });
  const { db } = server.services;
  const project = await db.project.findUniqueOrThrow({ where: { uid: projectUid } });
  const { report } = sampleInput();
  reviewUid = crypto.randomUUID();
  await db.review.create({
    data: {
      uid: reviewUid,
      workspaceId: owner.workspaceId,
      projectId: project.id,
      snapshotId: "none",
      engine: "agent",
      scope: JSON.stringify({ kind: "project" }),
      budget: "{}",
      settings: "{}",
      status: "completed",
      report: JSON.stringify(report),
      scoreOverall: report.overallScore,
      findingsCount: 3,
      finishedAt: new Date(),
    },
  });
  baseUid = crypto.randomUUID();
  await owner.client.ok("mutate", "knowledge.create", { workspaceId: owner.workspaceId, uid: baseUid, name: "Docs" });
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

function expectSecurityHeaders(res: Response, label: string) {
  expect(res.headers.get("x-content-type-options"), label).toBe("nosniff");
  expect(res.headers.get("referrer-policy"), label).toBe("strict-origin-when-cross-origin");
  expect(res.headers.get("x-frame-options"), label).toBe("DENY");
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp, label).toContain("frame-ancestors 'none'");
  expect(csp, label).toContain("default-src 'none'");
}

describe("security headers on every response", () => {
  const cases: [string, () => Promise<Response>, number][] = [
    ["health", () => fetch(`${server.url}/api/health`), 200],
    ["tRPC query", () => fetch(`${server.url}/api/trpc/account.setupState`), 200],
    ["tRPC 401", () => fetch(`${server.url}/api/trpc/account.me`), 401],
    ["tRPC 404", () => fetch(`${server.url}/api/trpc/nope.nothing`), 404],
    [
      "tRPC mutation",
      () =>
        fetch(`${server.url}/api/trpc/prompts.create`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie: owner.client.cookie },
          body: JSON.stringify({ workspaceId: owner.workspaceId, uid: crypto.randomUUID(), name: "n", content: "c" }),
        }),
      200,
    ],
    [
      "auth session",
      () => fetch(`${server.url}/api/auth/get-session`, { headers: { cookie: owner.client.cookie } }),
      200,
    ],
    [
      "auth sign-in refused",
      () =>
        fetch(`${server.url}/api/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: server.url },
          body: JSON.stringify({ email: owner.email, password: "wrong password!" }),
        }),
      401,
    ],
    ["auth unknown", () => fetch(`${server.url}/api/auth/nothing-here`), 404],
    [
      "export download",
      () =>
        fetch(`${server.url}/api/reviews/${reviewUid}/export?format=md`, { headers: { cookie: owner.client.cookie } }),
      200,
    ],
    ["export 400", () => fetch(`${server.url}/api/reviews/${reviewUid}/export?format=exe`), 400],
    [
      "upload, no such project",
      () => fetch(`${server.url}/api/projects/${crypto.randomUUID()}/upload?kind=zip`, { method: "POST" }),
      404,
    ],
    [
      "knowledge upload, not multipart",
      () => fetch(`${server.url}/api/knowledge/${baseUid}/upload`, { method: "POST" }),
      400,
    ],
    ["unknown route 404", () => fetch(`${server.url}/no/such/page`), 404],
    ["sign-up refusal 403", () => fetch(`${server.url}/api/auth/sign-up/email`, { method: "POST" }), 403],
    [
      "cross-origin refusal 403",
      () => fetch(`${server.url}/api/trpc/x`, { method: "POST", headers: { origin: "http://evil.example" } }),
      403,
    ],
    ["Socket.IO polling handshake", () => fetch(`${server.url}/socket.io/?EIO=4&transport=polling`), 200],
    [
      "Socket.IO refusal",
      () => fetch(`${server.url}/socket.io/?EIO=4&transport=polling`, { headers: { origin: "http://evil.example" } }),
      403,
    ],
  ];
  it.each(cases)("%s", async (label, send, status) => {
    const res = await send();
    expect(res.status, label).toBe(status);
    expectSecurityHeaders(res, label);
    await res.arrayBuffer();
  });

  it("the export download is an attachment that browsers will not sniff into a page", async () => {
    const res = await fetch(`${server.url}/api/reviews/${reviewUid}/export?format=json`, {
      headers: { cookie: owner.client.cookie },
    });
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(res.headers.get("content-security-policy")).toBe(API_CSP);
    await res.arrayBuffer();
  });
});

describe("Origin check on state-changing requests", () => {
  const evil = "http://evil.example";
  const cases: [string, string, RequestInit][] = [
    [
      "tRPC mutation",
      "/api/trpc/prompts.create",
      { body: JSON.stringify({ workspaceId: "x", uid: crypto.randomUUID(), name: "n", content: "c" }) },
    ],
    ["project upload", `/api/projects/PROJECT/upload?kind=files`, { body: "--x--" }],
    ["knowledge upload", `/api/knowledge/BASE/upload`, { body: "--x--" }],
    ["sign-in", "/api/auth/sign-in/email", { body: JSON.stringify({ email: "a@b.example", password: PASSWORD }) }],
    ["sign-out", "/api/auth/sign-out", { body: "{}" }],
    ["a DELETE anywhere", "/api/anything", { method: "DELETE" }],
  ];
  const url = (path: string) => `${server.url}${path.replace("PROJECT", projectUid).replace("BASE", baseUid)}`;

  it.each(cases)("%s from another site's page is refused (403) with a message", async (_label, path, init) => {
    const prompts = await server.services.db.prompt.count();
    for (const origin of [evil, "null", `${server.url.replace("127.0.0.1", "localhost")}`]) {
      const res = await fetch(url(path), {
        method: "POST",
        ...init,
        headers: { "content-type": "application/json", cookie: owner.client.cookie, origin },
      });
      expect(res.status, origin).toBe(403);
      const body = (await res.json()) as { message: string };
      expect(body.message).toContain(JSON.stringify(origin));
      expect(body.message).toMatch(/not this Argus site.*ALLOWED_ORIGINS/);
    }
    expect(await server.services.db.prompt.count()).toBe(prompts);
    // The session survived (the refused sign-out did not run).
    expect((await owner.client.query("account.me")).status).toBe(200);
  });

  it("the same requests from Argus's own pages (or from no page at all) go through", async () => {
    for (const headers of [{ origin: server.url }, {}] as Record<string, string>[]) {
      const res = await fetch(url("/api/trpc/prompts.create"), {
        method: "POST",
        headers: { "content-type": "application/json", cookie: owner.client.cookie, ...headers },
        body: JSON.stringify({ workspaceId: owner.workspaceId, uid: crypto.randomUUID(), name: "ok", content: "c" }),
      });
      expect(res.status).toBe(200);
    }
  });

  it("reads are not refused for their Origin (another site cannot read the answer anyway)", async () => {
    const res = await fetch(`${server.url}/api/health`, { headers: { origin: evil } });
    expect(res.status).toBe(200);
  });

  it("the Socket.IO handshake from another site's page is refused with the reason", async () => {
    const res = await fetch(`${server.url}/socket.io/?EIO=4&transport=polling`, {
      headers: { origin: evil, cookie: owner.client.cookie },
    });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { message: string };
    expect(body.message).toMatch(/"http:\/\/evil\.example", which is not this Argus site/);
    const ok = await fetch(`${server.url}/socket.io/?EIO=4&transport=polling`, {
      headers: { origin: server.url, cookie: owner.client.cookie },
    });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/"sid":/);
  });
});

describe("the page policy handed to Next.js", () => {
  let edge: Server;
  let edgeUrl: string;
  const seen: { csp?: string; nonce?: string; reportOnly?: string }[] = [];

  beforeAll(async () => {
    // The real request handler with a stand-in for Next's that records what it was given.
    const fakeNext = (req: IncomingMessage, res: ServerResponse) => {
      seen.push({
        csp: req.headers["content-security-policy"] as string,
        nonce: req.headers["x-nonce"] as string,
        reportOnly: req.headers["content-security-policy-report-only"] as string | undefined,
      });
      res.setHeader("content-type", "text/html");
      res.end("<!doctype html><p>page</p>");
    };
    edge = createServer(createRequestHandler(server.services, fakeNext));
    await new Promise<void>((resolve) => edge.listen(0, "127.0.0.1", resolve));
    edgeUrl = `http://127.0.0.1:${(edge.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => edge.close(() => resolve())));

  it("a fresh nonce per page, the same one in the response policy and in what Next reads", async () => {
    const spoofed = "script-src 'nonce-attackerchosen'";
    const a = await fetch(`${edgeUrl}/projects`, {
      headers: { "content-security-policy": spoofed, "content-security-policy-report-only": spoofed, "x-nonce": "x" },
    });
    const b = await fetch(`${edgeUrl}/projects`);
    for (const res of [a, b]) {
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    }
    const [first, second] = seen.slice(-2);
    const policy = a.headers.get("content-security-policy")!;
    expect(policy).toBe(first!.csp);
    expect(first!.reportOnly).toBeUndefined();
    expect(first!.nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(policy).toContain(`script-src 'self' 'nonce-${first!.nonce}' 'strict-dynamic'`);
    expect(policy).not.toContain("attackerchosen");
    expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(policy).not.toContain("'unsafe-eval'"); // production build
    for (const directive of ["frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'", "default-src 'self'"])
      expect(policy).toContain(directive);
    expect(second!.nonce).not.toBe(first!.nonce);
    expect(b.headers.get("content-security-policy")).toContain(`'nonce-${second!.nonce}'`);
  });

  it("API routes keep the allow-nothing policy even when the UI is served", async () => {
    const res = await fetch(`${edgeUrl}/api/health`);
    expect(res.headers.get("content-security-policy")).toBe(API_CSP);
  });
});

describe("which address the sign-in rate limit counts", () => {
  // better-auth's sign-in limit: 3 requests per 10 s per client address (production only).
  async function productionServer(extra: Record<string, string>): Promise<TestServer> {
    return startTestServer(await createTestConfig({ NODE_ENV: "production", ...extra }));
  }
  const failedSignIn = (s: TestServer, forwardedFor: string) =>
    fetch(`${s.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: s.url, "x-forwarded-for": forwardedFor },
      body: JSON.stringify({ email: uniqueEmail("nobody"), password: PASSWORD }),
    }).then((r) => r.status);

  // (Was a bug: better-auth took the client from X-Forwarded-For, which any client writes, so a new
  // made-up address per attempt meant unlimited password guesses.)
  it("without TRUSTED_PROXIES, a made-up X-Forwarded-For per attempt does not escape the limit", async () => {
    const s = await productionServer({});
    try {
      const statuses = [];
      for (let i = 1; i <= 5; i++) statuses.push(await failedSignIn(s, `198.51.100.${i}`));
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(statuses.slice(3)).toEqual([429, 429]);
    } finally {
      await s.stop();
    }
  });

  it("behind a trusted proxy, each client the proxy names is counted on its own", async () => {
    const s = await productionServer({ TRUSTED_PROXIES: "127.0.0.1,::1" });
    try {
      const statuses = [];
      for (let i = 1; i <= 5; i++) statuses.push(await failedSignIn(s, `203.0.113.${i}`));
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      // One client (whatever it prepends to the header itself) is still limited.
      const same = [];
      for (let i = 1; i <= 4; i++) same.push(await failedSignIn(s, `10.${i}.0.1, 203.0.113.77`));
      expect(same).toEqual([401, 401, 401, 429]);
    } finally {
      await s.stop();
    }
  });
});
