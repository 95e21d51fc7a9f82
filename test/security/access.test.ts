/**
 * Access control over the whole API surface, enumerated from the code: every tRPC procedure, every
 * HTTP route (server/http/handler.ts, better-auth's endpoints, Next route handlers) and every Socket.IO event
 * is called as anonymous, as the owner of another workspace using workspace A's real ids, and as each
 * role of A too weak for it. Each must be refused with the codebase's status (401 / 403 / 404) and
 * no data of A (nor any secret) in the answer. A new procedure, route or event without a case here
 * fails the first describe block.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roleAtLeast, type Role } from "../../server/auth/roles.ts";
import { Client, inviteAndSignUp, uniqueEmail, type Reply } from "../helpers/server.ts";
import { buildZip } from "../helpers/zip.ts";
import { findLeaks } from "./support/canaries.ts";
import {
  authEndpoints,
  httpRouteMatchers,
  nextRouteHandlers,
  repoRoot,
  socketEvents,
  trpcProcedures,
} from "./support/enumerate.ts";
import { PROCEDURE_CASES, type ActorName, type ProcedureCase } from "./support/procedure-cases.ts";
import { AUTH_ENDPOINT_CASES, SIGN_UP_SPELLINGS } from "./support/route-cases.ts";
import { openRoomClient, rawRequest, type RawReply, type RoomClient } from "./support/wire.ts";
import { type ClientMessage, MESSAGE_ROLES } from "../../server/shared/room-protocol.ts";
import { kbRoom, pipelineRoom, promptRoom, reviewRoom, runRoom } from "../../server/shared/rooms.ts";
import { encodeBinary } from "../../server/shared/coedit.ts";
import * as Y from "yjs";
import { Awareness, encodeAwarenessUpdate } from "y-protocols/awareness";
import { buildWorld, uploadDocuments, uploadZip, type World } from "./support/world.ts";

let w: World;

beforeAll(async () => {
  w = await buildWorld();
}, 180_000);

afterAll(async () => {
  await w?.close();
});

const ROLES: Role[] = ["viewer", "member", "owner"];

function clientOf(actor: ActorName): Client {
  if (actor === "anonymous") return new Client(w.server.url);
  if (actor === "outsider") return w.b.owner.client;
  return w.a[actor].client;
}

/** What must never appear in an answer to `actor`: secrets for everyone, A's data for strangers. */
function forbiddenFor(actor: ActorName): string[] {
  const serverPaths = [w.server.services.config.dataDir, repoRoot];
  const stranger = actor === "anonymous" || actor === "outsider";
  return [...w.secrets, ...serverPaths, ...(stranger ? w.dataOfA : [])];
}

function expectClean(actor: ActorName, what: string, body: unknown) {
  expect(findLeaks(body, forbiddenFor(actor)), `${what} as ${actor} leaked`).toEqual([]);
}

/** A refusal says what happened: a non-empty message, never a stack trace. */
function expectRefusal(r: Reply, status: number, what: string) {
  expect(r.status, `${what}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(status);
  if (status >= 400) {
    expect(r.error?.message, `${what}: a refusal without a message`).toMatch(/\S/);
    expect(JSON.stringify(r.body)).not.toMatch(/\n\s+at \S+ \(/);
  }
}

/** The status `actor` must get from the procedure, or undefined when it is allowed (not probed). */
function expectedStatus(c: ProcedureCase, actor: ActorName): number | undefined {
  const given = c.expect?.[actor];
  if (given !== undefined) return given;
  if (actor === "anonymous") return c.access === "public" ? undefined : 401;
  if (actor === "outsider") return c.access === "signedIn" ? 200 : c.access === "public" ? undefined : 403;
  if (c.access === "public" || c.access === "signedIn") return undefined;
  return roleAtLeast(actor, c.access) ? undefined : 403;
}

const procedures = trpcProcedures();

describe("every entry point has a security case", () => {
  it("tRPC: the case table's keys are the app router's procedures", () => {
    expect(Object.keys(PROCEDURE_CASES).sort()).toEqual(Object.keys(procedures).sort());
  });

  it("HTTP: the route table's keys are the matchers of server/http/handler.ts", () => {
    const found = httpRouteMatchers();
    expect(
      found.length,
      "no routes found: did server/http/handler.ts change shape? update enumerate.ts",
    ).toBeGreaterThan(4);
    expect(Object.keys(HTTP_ROUTE_CASES).sort()).toEqual(found);
  });

  it("HTTP: better-auth's endpoints under /api/auth all have a case", () => {
    expect(Object.keys(AUTH_ENDPOINT_CASES).sort()).toEqual(authEndpoints(w.server.services.auth));
  });

  it("HTTP: there are no Next route handlers under app/ without a case", () => {
    expect(nextRouteHandlers()).toEqual(Object.keys(NEXT_ROUTE_CASES).sort());
  });

  it("Socket.IO: the event table's keys are the events a connected socket listens to", async () => {
    const client = await openRoomClient(w.server.url, w.a.viewer.client.cookie);
    try {
      expect(Object.keys(SOCKET_EVENT_CASES).sort()).toEqual(socketEvents(w.server.io, client.socket.id!));
    } finally {
      client.close();
    }
  });
});

describe("tRPC procedures refuse whoever may not call them, with no data of A", () => {
  for (const [name, c] of Object.entries(PROCEDURE_CASES)) {
    it(name, async () => {
      const type = procedures[name];
      expect(type, `${name} is not a procedure any more`).toBeDefined();
      const call = (actor: ActorName, input: unknown) =>
        type === "query" ? clientOf(actor).query(name, input) : clientOf(actor).mutate(name, input);

      for (const actor of ["anonymous", "outsider", ...ROLES] as ActorName[]) {
        const status = expectedStatus(c, actor);
        if (status === undefined) continue;
        const r = await call(actor, c.input(w));
        expectRefusal(r, status, `${name} as ${actor}`);
        expectClean(actor, name, r.body);
      }
      for (const variant of c.crossIds ?? []) {
        const r = await call("outsider", variant.input(w));
        expectRefusal(r, variant.status, `${name} as outsider (${variant.why})`);
        expectClean("outsider", `${name} (${variant.why})`, r.body);
      }
      // The same input works for the least role allowed: the refusals above are about who asks,
      // not about a broken input. (Queries only: mutations would change the world for later cases.)
      if (type === "query" && c.access !== "public" && c.access !== "signedIn") {
        const r = await call(c.access, c.input(w));
        expect(r.status, `${name} as ${c.access}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
        expectClean(c.access, name, r.body);
      }
    });
  }

  it("a batch of A's reads sent by the outsider is refused item by item", async () => {
    const calls = ["projects.get", "reviews.get", "knowledge.get", "prompts.get", "snapshots.file"];
    const input = Object.fromEntries(calls.map((name, i) => [i, PROCEDURE_CASES[name]!.input(w)]));
    const res = await fetch(
      `${w.server.url}/api/trpc/${calls.join(",")}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`,
      { headers: { cookie: w.b.owner.client.cookie } },
    );
    const body = (await res.json()) as { error?: { data?: { httpStatus?: number } } }[] | { error: unknown };
    expect(Array.isArray(body) ? body.map((b) => b.error?.data?.httpStatus) : res.status).toEqual(
      Array.isArray(body) ? calls.map(() => 403) : 400,
    );
    expectClean("outsider", "a batch", body);
  });

  it("nobody borrowed A's stored API key through a connection test", () => {
    expect(findLeaks(w.trap.requests, [w.canaries.providerKey])).toEqual([]);
  });
});

async function rawAs(actor: ActorName, opts: Parameters<typeof rawRequest>[1]): Promise<RawReply> {
  const cookie = clientOf(actor).cookie;
  return rawRequest(w.server.url, { ...opts, headers: { ...(cookie ? { cookie } : {}), ...opts.headers } });
}

function expectRawRefusal(r: RawReply, status: number, actor: ActorName, what: string) {
  expect(r.status, `${what} as ${actor}: ${r.body.slice(0, 300)}`).toBe(status);
  expect(r.body, `${what} as ${actor}: a refusal without a message`).toMatch(/"message":"[^"]+/);
  expectClean(actor, what, r.body);
}

/** One check per matcher of server/http/handler.ts (keys: see httpRouteMatchers). */
const HTTP_ROUTE_CASES: Record<string, () => Promise<void>> = {
  "=== /api/health": async () => {
    const r = await rawAs("anonymous", { path: "/api/health" });
    expect(r.status).toBe(200);
    expect(Object.keys(JSON.parse(r.body) as object).sort()).toEqual([
      "db",
      "queue",
      "redis",
      "role",
      "status",
      "version",
    ]);
    expectClean("anonymous", "health", r.body);
  },

  "under /api/auth/sign-up": async () => {
    const { db } = w.server.services;
    const users = await db.user.count();
    const problems: string[] = [];
    for (const spelling of SIGN_UP_SPELLINGS) {
      const email = uniqueEmail("bypass");
      const r = await rawAs("anonymous", {
        method: "POST",
        path: spelling,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Bypass", email, password: "a long enough password" }),
      });
      if (r.status < 400 || r.status >= 500) problems.push(`${spelling} answered ${r.status}`);
      if (await db.user.findUnique({ where: { email } })) problems.push(`${spelling} created an account`);
      if (/session_token=[^;]/.test(String(r.headers["set-cookie"] ?? ""))) problems.push(`${spelling} set a session`);
      expectClean("anonymous", spelling, r.body);
    }
    expect(problems).toEqual([]);
    expect(await db.user.count()).toBe(users);
  },

  "startsWith /api/auth/": async () => {
    const seen: Record<string, number> = {};
    const wanted: Record<string, number> = {};
    for (const [key, expected] of Object.entries(AUTH_ENDPOINT_CASES)) {
      const [method, route] = key.split(" ") as [string, string];
      const send = Object.fromEntries(
        Object.entries(expected.kind === "session" ? (expected.send ?? {}) : {}).map(([k, v]) => [
          k,
          v === "$victim" ? w.a.owner.userId : v,
        ]),
      );
      const query = method === "GET" && Object.keys(send).length ? `?${new URLSearchParams(send)}` : "";
      const path = `/api/auth${route.replace(/:\w+/g, "x")}${query}`;
      const body = method === "GET" ? undefined : JSON.stringify(send);
      const headers: Record<string, string> = body ? { "content-type": "application/json" } : {};
      const anon = await rawAs("anonymous", { method, path, headers, body });
      seen[key] = anon.status;
      wanted[key] = expected.kind === "session" ? 401 : expected.anonymous;
      expectClean("anonymous", key, anon);
      // Reads as the outsider answer about the outsider only (writes would change its own account).
      if (method === "GET") {
        const r = await rawAs("outsider", { method, path });
        expect(r.status, `${key} as outsider`).toBeLessThan(500);
        expectClean("outsider", key, r);
      }
    }
    expect(seen).toEqual(wanted);
  },

  "startsWith /api/trpc/": async () => {
    for (const path of ["/api/trpc/nope", "/api/trpc/account.nope", "/api/trpc/", "/api/trpc/projects"]) {
      const r = await rawAs("outsider", { path });
      expect(r.status, `${path}: ${r.body.slice(0, 200)}`).toBe(404);
      expectClean("outsider", path, r.body);
    }
  },

  UPLOAD_ROUTE: async () => {
    const { db } = w.server.services;
    const project = await db.project.findUniqueOrThrow({ where: { uid: w.a.projectUid } });
    const before = await db.snapshot.count({ where: { projectId: project.id } });
    const zip = buildZip([{ name: "evil.ts", data: "export const planted = 1;\n" }]);
    for (const [actor, status] of [
      ["anonymous", 401],
      ["outsider", 403],
      ["viewer", 403],
    ] as const) {
      const res = await uploadZip(w.server, { client: clientOf(actor) }, w.a.projectUid, zip);
      expectRawRefusal({ status: res.status, headers: {}, body: await res.text() }, status, actor, "upload");
    }
    expect(await db.snapshot.count({ where: { projectId: project.id } })).toBe(before);
  },

  EXPORT_ROUTE: async () => {
    for (const format of ["md", "sarif", "json"]) {
      const path = `/api/reviews/${w.a.reviewUid}/export?format=${format}`;
      expectRawRefusal(await rawAs("anonymous", { path }), 401, "anonymous", path);
      expectRawRefusal(await rawAs("outsider", { path }), 403, "outsider", path);
      const allowed = await rawAs("viewer", { path });
      expect(allowed.status, `${path} as viewer`).toBe(200);
      expectClean("viewer", path, allowed.body);
    }
  },

  routeKnowledgeUpload: async () => {
    const { db } = w.server.services;
    const base = await db.knowledgeBase.findUniqueOrThrow({ where: { uid: w.a.baseUid } });
    const before = await db.knowledgeDocument.count({ where: { knowledgeBaseId: base.id } });
    for (const [actor, status] of [
      ["anonymous", 401],
      ["outsider", 403],
      ["viewer", 403],
    ] as const) {
      const res = await uploadDocuments(w.server, { client: clientOf(actor) }, w.a.baseUid, {
        [`planted-${randomUUID()}.md`]: "# planted\n",
      });
      expectRawRefusal({ status: res.status, headers: {}, body: await res.text() }, status, actor, "knowledge upload");
    }
    expect(await db.knowledgeDocument.count({ where: { knowledgeBaseId: base.id } })).toBe(before);
  },

  // Webhooks carry no session: the signature is the credential (tested with a configured App in
  // server/forges/github-pull-review.test.ts). Here no App is configured: nothing is taken, whoever asks.
  GITHUB_WEBHOOK_ROUTE: async () => {
    const { db } = w.server.services;
    for (const actor of ["anonymous", "viewer"] as const) {
      const r = await rawAs(actor, {
        method: "POST",
        path: "/api/forges/github/webhook",
        headers: {
          "content-type": "application/json",
          "x-github-event": "pull_request",
          "x-github-delivery": randomUUID(),
          "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
        },
        body: JSON.stringify({ action: "opened", number: 1 }),
      });
      expectRawRefusal(r, 404, actor, "github webhook");
    }
    expect(await db.forgeDelivery.count()).toBe(0);
  },

  // GitLab's X-Gitlab-Token is the credential (tested with a connection in
  // server/forges/gitlab-merge-request.test.ts); a session is none, and no token is 401.
  GITLAB_WEBHOOK_ROUTE: async () => {
    const { db } = w.server.services;
    for (const actor of ["anonymous", "viewer", "owner"] as const) {
      const r = await rawAs(actor, {
        method: "POST",
        path: "/api/forges/gitlab/webhook",
        headers: {
          "content-type": "application/json",
          "x-gitlab-event": "Merge Request Hook",
          "x-gitlab-event-uuid": randomUUID(),
          "x-gitlab-token": "not-a-connection-secret-0123456789",
        },
        body: JSON.stringify({ object_kind: "merge_request" }),
      });
      expectRawRefusal(r, 401, actor, "gitlab webhook");
    }
    expect(await db.forgeDelivery.count()).toBe(0);
  },
};

/** Next route handlers (app/**\/route.ts): none today; each new one needs a check here. */
const NEXT_ROUTE_CASES: Record<string, () => Promise<void>> = {};

describe("HTTP routes refuse whoever may not call them, with no data of A", () => {
  for (const [key, check] of Object.entries(HTTP_ROUTE_CASES)) it(key, check, 60_000);
  for (const [key, check] of Object.entries(NEXT_ROUTE_CASES)) it(`next: ${key}`, check);
});

const rooms = () => [
  reviewRoom(w.a.reviewUid),
  kbRoom(w.a.baseUid),
  runRoom(w.a.runUid),
  pipelineRoom(w.a.pipelineUid),
];

/** An event every kind of room carries (a chat message), with `text` in it. */
const probe = (text: string) =>
  ({
    type: "chat_message",
    payload: {
      id: randomUUID(),
      thread: null,
      author: { id: "probe", name: "Probe" },
      body: text,
      version: 1,
      createdAt: new Date().toISOString(),
      editedAt: null,
      deleted: false,
    },
  }) as const;

/** Rows that any room message could have written: events, chat, edits, reactions, votes, steering. */
async function roomWrites(): Promise<number[]> {
  const db = w.server.services.db;
  return Promise.all([
    db.roomEvent.count(),
    db.roomMessage.count(),
    db.roomMessageEdit.count(),
    db.roomMessageReaction.count(),
    db.findingVote.count(),
    db.reviewSteer.count(),
    db.reviewFinding.count({ where: { resolvedAt: { not: null } } }),
    db.coeditDoc.count(),
    db.coeditUpdate.count(),
    db.pipelineVersion.count(),
  ]);
}

/**
 * A message sent by the outsider (B's owner) into each of A's rooms — and, when it needs a member, by
 * A's viewer — is refused with a reason, leaks nothing of A and writes nothing. `allowed` (optional)
 * sends it as someone who may: proof that the refusal is about who asks.
 */
async function refusedMessage(
  message: ClientMessage,
  payloadFor: (room: string) => Record<string, unknown>,
  allowed?: { as: "viewer" | "member"; room: string },
) {
  const outsider = await openRoomClient(w.server.url, w.b.owner.client.cookie);
  const viewer = await openRoomClient(w.server.url, w.a.viewer.client.cookie);
  try {
    const before = await roomWrites();
    const tries: [RoomClient, ActorName][] = [[outsider, "outsider"]];
    if (MESSAGE_ROLES[message] === "member") tries.push([viewer, "viewer"]);
    for (const [client, actor] of tries)
      for (const room of rooms()) {
        const reply = await client.send(message, payloadFor(room));
        expect(reply.ok, `${actor}: ${message} in ${room}`).toBe(false);
        expect(reply).toMatchObject({
          ok: false,
          code: expect.stringMatching(/^(forbidden|not_found|invalid|unauthenticated)$/),
          message: expect.stringMatching(/\S/),
        });
        expectClean(actor, `${message} ${room}`, reply);
      }
    // Hostile payloads: no object, a room in an array, a room of another kind's prefix.
    for (const junk of [null, 42, "x", { ...payloadFor(rooms()[0]!), room: [rooms()[0]] }])
      expect((await outsider.send(message, junk)).ok).toBe(false);
    expect(await roomWrites(), `${message} wrote something`).toEqual(before);
    if (allowed) {
      const who = await openRoomClient(w.server.url, w.a[allowed.as].client.cookie);
      try {
        // Presence is about a room one is in: join first, as the browser does.
        expect((await who.join(allowed.room)).ok).toBe(true);
        const reply = await who.send(message, payloadFor(allowed.room));
        expect(reply, `${allowed.as} could not send ${message}`).toMatchObject({ ok: true });
      } finally {
        who.close();
      }
    }
  } finally {
    outsider.close();
    viewer.close();
  }
}

/** A chat message of A's viewer in A's review room (to edit, delete or read the edits of). */
async function viewersMessage(): Promise<string> {
  const viewer = await openRoomClient(w.server.url, w.a.viewer.client.cookie);
  try {
    const reply = await viewer.send("chat.send", { room: reviewRoom(w.a.reviewUid), body: `mine ${randomUUID()}` });
    expect(reply.ok).toBe(true);
    return (reply as unknown as { message: { id: string } }).message.id;
  } finally {
    viewer.close();
  }
}

/** y-protocols sync step 1 of an empty doc (what a browser sends to open a draft). */
const SYNC_STEP1 = encodeBinary(Uint8Array.from([0, 1, 0]));
/** y-protocols update message carrying `text` typed into a pipeline draft's YAML. */
function draftEdit(text: string): string {
  const doc = new Y.Doc();
  doc.getText("yaml").insert(0, text);
  const update = Y.encodeStateAsUpdate(doc);
  return encodeBinary(Uint8Array.from([2, update.length, ...update]));
}
/** An awareness update announcing a cursor under a fresh client id. */
function cursorUpdate(): string {
  const awareness = new Awareness(new Y.Doc());
  awareness.setLocalState({ user: { name: "anyone", color: "#336699" }, cursor: null, line: 1 });
  return encodeBinary(encodeAwarenessUpdate(awareness, [awareness.clientID]));
}

/** A client of A's `as` that joined `room` and opened its draft; its generation for edits. */
async function openDraft(as: "viewer" | "member", room: string) {
  const client = await openRoomClient(w.server.url, w.a[as].client.cookie);
  expect((await client.join(room)).ok).toBe(true);
  const opened = await client.send("doc.open", { room, sync: SYNC_STEP1 });
  expect(opened, `${as} could not open the draft of ${room}`).toMatchObject({ ok: true, readOnly: as === "viewer" });
  return { client, generation: (opened as unknown as { generation: number }).generation };
}

/** One check per client→server Socket.IO event. */
const SOCKET_EVENT_CASES: Record<string, () => Promise<void>> = {
  join: async () => {
    // Anonymous: the handshake itself is refused.
    const refused = await openRoomClient(w.server.url).then(
      (c) => (c.close(), null),
      (err: Error & { data?: unknown }) => err,
    );
    expect(refused?.message).toBe("unauthorized");

    const outsider = await openRoomClient(w.server.url, w.b.owner.client.cookie);
    const viewer = await openRoomClient(w.server.url, w.a.viewer.client.cookie);
    try {
      for (const room of rooms()) {
        const reply = await outsider.join(room);
        expect(reply.ok, `outsider joined ${room}`).toBe(false);
        expect(reply).toEqual({
          ok: false,
          code: expect.stringMatching(/^(forbidden|not_found|invalid|unauthenticated)$/),
          message: expect.stringMatching(/\S/),
        });
        expectClean("outsider", `join ${room}`, reply);
        // The viewer of A may watch: proof that the room exists and the refusal is about who asks.
        const allowed = await viewer.join(room);
        expect(allowed.ok, `viewer could not join ${room}`).toBe(true);
      }
      // Hostile room names: arrays, objects, other kinds, another room's prefix.
      for (const room of [[`review:${w.a.reviewUid}`], { room: `review:${w.a.reviewUid}` }, `review:${w.a.reviewUid}x`])
        expect((await outsider.join(room as string)).ok).toBe(false);
      for (const room of rooms()) await w.server.services.events.publish(room, probe(w.canaries.tagA));
      await waitUntil(() => viewer.received.length >= rooms().length);
      expect(outsider.received, "the outsider received A's events").toEqual([]);
    } finally {
      outsider.close();
      viewer.close();
    }
  },

  leave: async () => {
    const outsider = await openRoomClient(w.server.url, w.b.owner.client.cookie);
    const viewer = await openRoomClient(w.server.url, w.a.viewer.client.cookie);
    try {
      for (const room of rooms()) expect((await viewer.join(room)).ok).toBe(true);
      // Leaving rooms one never joined (or with junk) changes nobody else's membership.
      for (const room of [...rooms(), 42, null, { room: "x" }]) outsider.socket.emit("leave", { room: room as string });
      expect((await outsider.join(rooms()[0]!)).ok).toBe(false);
      for (const room of rooms()) await w.server.services.events.publish(room, probe("after leave"));
      await waitUntil(() => viewer.received.length >= rooms().length);
      expect(outsider.received).toEqual([]);
    } finally {
      outsider.close();
      viewer.close();
    }
  },

  history: () => refusedMessage("history", (room) => ({ room, afterSeq: 0 }), { as: "viewer", room: rooms()[0]! }),
  "chat.send": () =>
    refusedMessage("chat.send", (room) => ({ room, body: `from B ${w.canaries.tagA}` }), {
      as: "viewer",
      room: rooms()[1]!,
    }),
  "chat.page": () => refusedMessage("chat.page", (room) => ({ room }), { as: "viewer", room: rooms()[0]! }),
  "chat.edit": async () => {
    const id = await viewersMessage();
    // Not even a member of A may change the viewer's words.
    await refusedMessage("chat.edit", (room) => ({ room, id, body: "edited by B" }));
    const member = await openRoomClient(w.server.url, w.a.member.client.cookie);
    try {
      expect(
        await member.send("chat.edit", { room: reviewRoom(w.a.reviewUid), id, body: "edited by Max" }),
      ).toMatchObject({
        ok: false,
      });
    } finally {
      member.close();
    }
  },
  "chat.delete": async () => {
    const id = await viewersMessage();
    await refusedMessage("chat.delete", (room) => ({ room, id }));
    const owner = await openRoomClient(w.server.url, w.a.owner.client.cookie);
    try {
      expect(await owner.send("chat.delete", { room: reviewRoom(w.a.reviewUid), id })).toMatchObject({ ok: false });
    } finally {
      owner.close();
    }
  },
  "chat.edits": async () => {
    const id = await viewersMessage();
    await refusedMessage("chat.edits", (room) => ({ room, id }), { as: "viewer", room: reviewRoom(w.a.reviewUid) });
  },
  "chat.typing": async () => {
    // Refused to the outsider (nothing passed on: the outsider is in none of A's rooms anyway, and a
    // member of A listening hears nothing from it); a viewer of A may type.
    const listener = await openRoomClient(w.server.url, w.a.member.client.cookie);
    const heard: unknown[] = [];
    listener.socket.on("typing", (t) => heard.push(t));
    try {
      for (const room of rooms()) expect((await listener.join(room)).ok).toBe(true);
      await refusedMessage("chat.typing", (room) => ({ room }));
      await new Promise((r) => setTimeout(r, 200));
      expect(heard, "a refused typing signal was passed on").toEqual([]);
      await refusedMessage("chat.typing", (room) => ({ room }), { as: "viewer", room: rooms()[0]! });
      await waitUntil(() => heard.length === 1);
    } finally {
      listener.close();
    }
  },
  "chat.react": async () => {
    const id = await viewersMessage();
    await refusedMessage("chat.react", (room) => ({ room, id, emoji: "👍" }), {
      as: "viewer",
      room: reviewRoom(w.a.reviewUid),
    });
  },
  "finding.vote": () =>
    refusedMessage("finding.vote", (room) => ({ room, fingerprint: w.a.fingerprint, verdict: "false_positive" })),
  "finding.resolve": () =>
    refusedMessage("finding.resolve", (room) => ({ room, fingerprint: w.a.fingerprint, resolved: true })),
  "steer.hint": () => refusedMessage("steer.hint", (room) => ({ room, text: "look at src/app.ts" })),
  "steer.pause": () => refusedMessage("steer.pause", (room) => ({ room })),
  "steer.resume": () => refusedMessage("steer.resume", (room) => ({ room })),
  "steer.stop": () => refusedMessage("steer.stop", (room) => ({ room })),
  "presence.update": () =>
    refusedMessage("presence.update", (room) => ({ room, focus: null }), { as: "viewer", room: rooms()[0]! }),
  // Co-editing: the drafts of A's pipeline and prompt. The outsider opens, edits, points and saves
  // nothing (in any of A's rooms); A's viewer follows read-only; A's member edits.
  "doc.open": async () => {
    await refusedMessage("doc.open", (room) => ({ room, sync: SYNC_STEP1 }), {
      as: "viewer",
      room: pipelineRoom(w.a.pipelineUid),
    });
    const outsider = await openRoomClient(w.server.url, w.b.owner.client.cookie);
    try {
      const reply = await outsider.send("doc.open", { room: promptRoom(w.a.promptUid), sync: SYNC_STEP1 });
      expect(reply.ok, "the outsider opened A's prompt draft").toBe(false);
      expectClean("outsider", "doc.open prompt", reply);
    } finally {
      outsider.close();
    }
  },
  "doc.update": async () => {
    const edit = draftEdit(`# from B ${w.canaries.tagA}\n`);
    await refusedMessage("doc.update", (room) => ({ room, generation: 0, sync: edit }));
    const room = pipelineRoom(w.a.pipelineUid);
    const viewer = await openDraft("viewer", room);
    const member = await openDraft("member", room);
    try {
      const refused = await viewer.client.send("doc.update", { room, generation: viewer.generation, sync: edit });
      expect(refused).toMatchObject({ ok: false, code: "forbidden", message: expect.stringMatching(/\S/) });
      const ok = await member.client.send("doc.update", {
        room,
        generation: member.generation,
        sync: draftEdit("# a member's note\n"),
      });
      expect(ok, "A's member could not edit A's pipeline draft").toMatchObject({ ok: true });
    } finally {
      viewer.client.close();
      member.client.close();
    }
  },
  "doc.awareness": async () => {
    await refusedMessage("doc.awareness", (room) => ({ room, update: cursorUpdate() }));
    const viewer = await openDraft("viewer", pipelineRoom(w.a.pipelineUid));
    try {
      const reply = await viewer.client.send("doc.awareness", {
        room: pipelineRoom(w.a.pipelineUid),
        update: cursorUpdate(),
      });
      expect(reply, "A's viewer could not show a cursor").toMatchObject({ ok: true });
    } finally {
      viewer.client.close();
    }
  },
  "doc.save": async () => {
    await refusedMessage("doc.save", (room) => ({ room, message: "saved by B" }));
    const room = pipelineRoom(w.a.pipelineUid);
    const viewer = await openDraft("viewer", room);
    const member = await openDraft("member", room);
    try {
      expect(await viewer.client.send("doc.save", { room })).toMatchObject({ ok: false, code: "forbidden" });
      expect(await member.client.send("doc.save", { room, message: "saved by A's member" })).toMatchObject({
        ok: true,
      });
    } finally {
      viewer.client.close();
      member.client.close();
    }
  },
};

describe("Socket.IO events refuse whoever may not use them, with no data of A", () => {
  for (const [key, check] of Object.entries(SOCKET_EVENT_CASES)) it(key, check);

  it("a member removed from A loses A's rooms at once, not at the next 30 s re-check", async () => {
    const leaver = await inviteAndSignUp(w.a.owner, "viewer", "Leaver");
    const client = await openRoomClient(w.server.url, leaver.client.cookie);
    try {
      for (const room of rooms()) expect((await client.join(room)).ok).toBe(true);
      await w.a.owner.client.ok("mutate", "workspaces.removeMember", {
        workspaceId: w.a.workspaceId,
        userId: leaver.userId,
      });
      await waitUntil(
        () => client.received.filter((m) => (m as { revoked?: string }).revoked).length >= rooms().length,
        5000,
      );
      const before = client.received.length;
      for (const room of rooms()) await w.server.services.events.publish(room, probe(w.canaries.tagA));
      await new Promise((r) => setTimeout(r, 300));
      expect(client.received.slice(before), "events after the removal").toEqual([]);
      expect((await client.join(rooms()[0]!)).ok).toBe(false);
    } finally {
      client.close();
    }
  });
});

async function waitUntil(cond: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
