import { randomUUID } from "node:crypto";
import { hydrate, InfiniteQueryObserver, QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpLink } from "@trpc/client";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
// A contract between the layers: a page's server components read their first data through
// app/_lib/server-prefetch.tsx from the router server/trpc/page-queries.ts hands over, and the
// browser's useQuery must find exactly what /api/trpc would have answered, under its own keys. It
// lives in test/contracts because server/ never imports app/ (lint: server-app).
const request = vi.hoisted(() => ({ headers: new Headers() }));
vi.mock("next/headers", () => ({ headers: async () => request.headers }));

import { nextCursor } from "../../app/_lib/next-cursor.ts";
import { prefetchState } from "../../app/_lib/server-prefetch.tsx";
import { PAGE_QUERIES_GLOBAL } from "../../server/shared/page-queries.ts";
import { registerPageQueries } from "../../server/trpc/page-queries.ts";
import type { AppRouter } from "../../server/trpc/router.ts";
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

  it("hands over an infinite query's first page as the browser's useInfiniteQuery holds it, and refetches it", async () => {
    asOwner();
    const workspaceId = owner.workspaceId;
    await owner.client.ok("mutate", "projects.startDemo", { workspaceId, engine: "static" });
    // The demo's review finished: a row that changes while it runs would differ between two reads.
    await server.services.queue.idle();
    // The reviews page's read (app/(app)/reviews/page.tsx and reviews-page.tsx): pages of one here.
    const input = { workspaceId, projectUid: undefined, status: undefined, limit: 1 };
    const getNextPageParam = nextCursor;
    const state = await prefetchState(async ({ trpc, fetchInfinite }) => {
      await fetchInfinite(trpc.reviews.list.infiniteQueryOptions(input, { getNextPageParam }));
    });
    const firstPage = await owner.client.ok<{ items: unknown[]; nextCursor: string | null }>("query", "reviews.list", {
      workspaceId,
      limit: 1,
    });
    expect(firstPage.items).toHaveLength(1);
    expect(state!.queries.map((q) => q.queryKey)).toEqual([
      [["reviews", "list"], { input: { workspaceId, limit: 1 }, type: "infinite" }],
    ]);
    expect(state!.queries[0]!.state.data).toEqual({ pages: [firstPage], pageParams: [undefined] });

    // The browser: its QueryClient takes the state, and useInfiniteQuery's observer (the browser's
    // own options: a tRPC client over HTTP) finds the page without asking, then refetches it with
    // the same first cursor (none: a null one would be refused) and goes on to the next page.
    const browser = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
    hydrate(browser, state!);
    const client = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${server.url}/api/trpc`, headers: { cookie: owner.client.cookie } })],
    });
    const trpc = createTRPCOptionsProxy<AppRouter>({ client, queryClient: browser });
    const observer = new InfiniteQueryObserver(
      browser,
      trpc.reviews.list.infiniteQueryOptions(input, { getNextPageParam }),
    );
    const first = observer.getCurrentResult();
    expect(first.status).toBe("success");
    expect(first.isFetching).toBe(false);
    expect(first.data).toEqual({ pages: [firstPage], pageParams: [undefined] });
    expect(first.hasNextPage).toBe(firstPage.nextCursor !== null);
    const refetched = await observer.refetch();
    expect(refetched.status).toBe("success");
    expect(refetched.data!.pages).toEqual([firstPage]);
    browser.clear();
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
