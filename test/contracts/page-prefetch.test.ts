import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
// A contract between the layers: a page's server components read their first data through
// app/_lib/server-prefetch.tsx from the router server/trpc/page-queries.ts hands over, and the
// browser's useQuery must find exactly what /api/trpc would have answered, under its own keys. It
// lives in test/contracts because server/ never imports app/ (lint: server-app).
const request = vi.hoisted(() => ({ headers: new Headers() }));
vi.mock("next/headers", () => ({ headers: async () => request.headers }));

import { prefetchState } from "../../app/_lib/server-prefetch.tsx";
import { PAGE_QUERIES_GLOBAL } from "../../server/shared/page-queries.ts";
import { registerPageQueries } from "../../server/trpc/page-queries.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

let server: TestServer;
let owner: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  registerPageQueries(server.services);
  owner = await signUp(server.url, { name: "Ada" });
  await owner.client.ok("mutate", "projects.create", {
    workspaceId: owner.workspaceId,
    uid: randomUUID(),
    name: "Shop",
  });
});
afterAll(async () => {
  delete (globalThis as Record<symbol, unknown>)[Symbol.for(PAGE_QUERIES_GLOBAL)];
  await server?.stop();
});

const asOwner = () => {
  request.headers = new Headers({ cookie: owner.client.cookie });
};

describe("a page's first reads on the server", () => {
  it("hands over /api/trpc's answers (JSON: dates as strings) under the browser's query keys", async () => {
    asOwner();
    const workspaceId = owner.workspaceId;
    const state = await prefetchState(async ({ trpc, fetch }) => {
      const me = await fetch(trpc.account.me.queryOptions());
      expect(me.user.email).toBe(owner.email);
      await fetch(trpc.projects.list.queryOptions({ workspaceId }));
    });
    const byKey = new Map(state!.queries.map((q) => [JSON.stringify(q.queryKey), q.state.data]));
    expect([...byKey.keys()]).toEqual([
      JSON.stringify([["account", "me"], { type: "query" }]),
      JSON.stringify([["projects", "list"], { input: { workspaceId }, type: "query" }]),
    ]);
    expect(byKey.get(JSON.stringify([["account", "me"], { type: "query" }]))).toEqual(
      await owner.client.ok("query", "account.me"),
    );
    const projects = byKey.get(JSON.stringify([["projects", "list"], { input: { workspaceId }, type: "query" }]));
    expect(projects).toEqual(await owner.client.ok("query", "projects.list", { workspaceId }));
    expect(typeof (projects as { createdAt: unknown }[])[0]!.createdAt).toBe("string");
  });

  it("leaves out a read that failed, keeping the others, and never throws", async () => {
    asOwner();
    const state = await prefetchState(async ({ trpc, fetch }) => {
      await Promise.all([
        fetch(trpc.account.me.queryOptions()),
        fetch(trpc.reviews.get.queryOptions({ uid: randomUUID() })),
      ]);
    });
    expect(state!.queries.map((q) => q.queryKey[0])).toEqual([["account", "me"]]);
  });

  it("hands over nothing when signed out: the browser asks, and is sent to sign in", async () => {
    request.headers = new Headers();
    const state = await prefetchState(({ trpc, fetch }) => fetch(trpc.account.me.queryOptions()));
    expect(state).toBeNull();
  });

  it("hands over nothing outside the Argus server (no router registered)", async () => {
    asOwner();
    const key = Symbol.for(PAGE_QUERIES_GLOBAL);
    const store = globalThis as Record<symbol, unknown>;
    const handle = store[key];
    delete store[key];
    try {
      expect(await prefetchState(({ trpc, fetch }) => fetch(trpc.account.me.queryOptions()))).toBeNull();
    } finally {
      store[key] = handle;
    }
  });
});
