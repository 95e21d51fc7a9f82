/**
 * One room, many watchers: 5,000 token deltas published paced at 1,000/s and as a burst, fanned out
 * to 200 connections held by child processes (bench/rooms/watcher.ts). Argus's path is the real one —
 * `events.publish` (validation, coalescing into COALESCE_MS frames, a stored row per frame), the Socket.IO bridge, and
 * clients signed in through better-auth and joined with the room protocol — measured against a bare
 * `ws` server doing the same fan-out in the same run, per delta and batched into the same window.
 */
import os from "node:os";
import { COALESCE_MS } from "../../server/events/bus.ts";
import type { RoomEventBody } from "../../server/shared/room-events.ts";
import { roomName } from "../../server/shared/rooms.ts";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import { inviteAndSignUp, PASSWORD, signUp, startTestServer, type TestUser } from "../../test/helpers/server.ts";
import { clock, deltaText } from "./deltas.ts";
import { startRawWs } from "./raw-ws.ts";
import { isCollected, isOk, Watchers } from "./watchers.ts";

export interface FanoutOptions {
  processes: number;
  connectionsPerProcess: number;
  deltas: number;
  ratePerSec: number;
}

export const FANOUT_DEFAULTS: FanoutOptions = {
  processes: 4,
  connectionsPerProcess: 50,
  deltas: 5000,
  ratePerSec: 1000,
};

export type Mode = "paced" | "burst";

export interface Publisher {
  publish(text: string): void;
  /** Everything published is on its way (no open window). */
  settle(): Promise<void>;
}

let runCounter = 0;

/** Publishes `deltas` deltas and waits until every watcher has them all (or gives up); the figures of what arrived. */
export async function measureRun(watchers: Watchers, publisher: Publisher, mode: Mode, opts: FanoutOptions) {
  const run = ++runCounter;
  const n = opts.deltas;
  await watchers.all({ cmd: "start", run, expected: n }, isOk("started"));
  // The machine may be shared: how busy it was (`uptime`'s load averages) when the run began and ended.
  const loadAtStart = loadAverages();
  const started = clock();
  if (mode === "burst") {
    for (let i = 0; i < n; i++) publisher.publish(deltaText(run, i, clock()));
  } else {
    // Every delta is created at its slot (start + i / rate), as a model's stream would hand it over,
    // and published as soon as the process gets to it: time the process spends busy elsewhere (a
    // blocked event loop) counts in the delta's latency, as it would for a real stream.
    const interval = 1000 / opts.ratePerSec;
    let i = 0;
    while (i < n) {
      const due = Math.min(n, Math.floor((clock() - started) / interval) + 1);
      for (; i < due; i++) publisher.publish(deltaText(run, i, started + i * interval));
      if (i < n) await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
  const published = clock();
  await publisher.settle();
  const allArrived = await watchers.done(run, 30_000);
  const replies = await watchers.all({ cmd: "collect" }, isCollected);
  const connections = replies.reduce((a, r) => a + r.collected.connections, 0);
  const unique = replies.reduce((a, r) => a + r.collected.unique, 0);
  const lastArrival = Math.max(...replies.map((r) => r.collected.lastArrival));
  const latencies = new Float64Array(unique);
  let at = 0;
  for (const r of replies) {
    latencies.set(r.collected.latencies, at);
    at += r.collected.latencies.length;
  }
  latencies.sort();
  const q = (p: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN);
  const expected = n * connections;
  return {
    mode,
    machineLoad: { atStart: loadAtStart, atEnd: loadAverages() },
    deltas: n,
    connections,
    publishMs: round(published - started),
    allArrived,
    delivered: unique,
    lost: expected - unique,
    duplicates: replies.reduce((a, r) => a + r.collected.duplicates, 0),
    reordered: replies.reduce((a, r) => a + r.collected.reordered, 0),
    framesPerConnection: round(replies.reduce((a, r) => a + r.collected.frames, 0) / connections),
    deliveredPerSec: Math.round(unique / ((lastArrival - started) / 1000)),
    latencyMs: { p50: q(0.5), p95: q(0.95), p99: q(0.99), max: q(1) },
  };
}

const round = (x: number) => Math.round(x * 100) / 100;

/** The 1, 5 and 15 minute load averages, as `uptime` prints them (on this many cores: machine.cpus). */
export const loadAverages = () =>
  os
    .loadavg()
    .map((x) => round(x))
    .join(" ");

async function measureBoth(watchers: Watchers, publisher: Publisher, opts: FanoutOptions) {
  // Warm-up (JIT, first frames, first rows), not reported.
  await measureRun(watchers, publisher, "burst", { ...opts, deltas: 500 });
  return {
    paced: await measureRun(watchers, publisher, "paced", opts),
    burst: await measureRun(watchers, publisher, "burst", opts),
  };
}

export async function measureArgus(watchers: Watchers, opts: FanoutOptions) {
  const server = await startTestServer();
  try {
    const owner = await signUp(server.url, { name: "Owner" });
    // One viewer per process; each process signs in itself and opens its connections with that session.
    const viewers: TestUser[] = [];
    for (let i = 0; i < watchers.size; i++) viewers.push(await inviteAndSignUp(owner, "viewer", `Watcher ${i}`));
    const review = await createReviewRow(server.services.db, owner.workspaceId, { status: "running" });
    const room = roomName("review", review.uid);
    await watchers.all(
      (i) => ({
        cmd: "open",
        transport: "socket.io",
        url: server.url,
        count: opts.connectionsPerProcess,
        room,
        email: viewers[i]!.email,
        password: PASSWORD,
      }),
      isOk("opened"),
    );
    const { events } = server.services;
    const publisher: Publisher = {
      publish: (text) => {
        const body: RoomEventBody<"review"> = { type: "token", payload: { text, phase: "exploring" } };
        void events.publish(room, body);
      },
      settle: () => events.flush(),
    };
    const figures = await measureBoth(watchers, publisher, opts);
    await watchers.all({ cmd: "close" }, isOk("closed"));
    return figures;
  } finally {
    await server.stop();
  }
}

async function measureRawWs(watchers: Watchers, opts: FanoutOptions, coalesced: boolean) {
  const raw = await startRawWs({ coalesced });
  try {
    await watchers.all(
      { cmd: "open", transport: "ws", url: raw.url, count: opts.connectionsPerProcess },
      isOk("opened"),
    );
    const publisher: Publisher = {
      publish: (text) => raw.publish(text),
      settle: async () => raw.flush(),
    };
    const figures = await measureBoth(watchers, publisher, opts);
    await watchers.all({ cmd: "close" }, isOk("closed"));
    return figures;
  } finally {
    await raw.close();
  }
}

export async function measureFanout(opts: FanoutOptions = FANOUT_DEFAULTS) {
  const watchers = await Watchers.fork(opts.processes);
  try {
    const argus = await measureArgus(watchers, opts);
    const rawPerDelta = await measureRawWs(watchers, opts, false);
    const rawCoalesced = await measureRawWs(watchers, opts, true);
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    return {
      setup: {
        connections: opts.processes * opts.connectionsPerProcess,
        processes: opts.processes,
        deltas: opts.deltas,
        pacedRatePerSec: opts.ratePerSec,
      },
      "Argus room (events.publish → bus → Socket.IO bridge → socket.io-client)": argus,
      "baseline: raw ws, one message per delta": rawPerDelta,
      [`baseline: raw ws, deltas batched in the same ${COALESCE_MS} ms window`]: rawCoalesced,
      throughputVsRawWs: {
        burstPerDelta: ratio(argus.burst.deliveredPerSec, rawPerDelta.burst.deliveredPerSec),
        burstBatched: ratio(argus.burst.deliveredPerSec, rawCoalesced.burst.deliveredPerSec),
        pacedPerDelta: ratio(argus.paced.deliveredPerSec, rawPerDelta.paced.deliveredPerSec),
        pacedBatched: ratio(argus.paced.deliveredPerSec, rawCoalesced.paced.deliveredPerSec),
      },
    };
  } finally {
    watchers.kill();
  }
}
