/**
 * Co-editing under load (issue 29, Performance; `npm run bench -- coedit`): 10 editors, each typing 5
 * characters a second into one pipeline's shared draft for 60 s (COEDIT_SECONDS shortens it), on one
 * node — the real server, real Socket.IO clients signed in, the browser's own DocClient. Measured:
 * remote edit latency (from the keystroke to the edit applied in each other editor's doc) p50/p99,
 * convergence (every editor and a late newcomer hold the same text), and the bytes stored per minute
 * of editing. Baseline in the same run: the same keystrokes relayed raw through a bare Socket.IO room
 * (no Yjs, no storage, no authorization) on the same machine.
 */
import { createServer } from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";
import { io as connect, type Socket } from "socket.io-client";
import * as Y from "yjs";
import { FROM_SERVER } from "../app/_lib/coedit/doc-client.ts";
import { createPipelineRow, type Editor, openEditor, settled, textOf } from "../test/helpers/coedit.ts";
import { openRoomClient } from "../test/helpers/room-client.ts";
import { signUp, signUpInNewWorkspace, startTestServer, type TestUser } from "../test/helpers/server.ts";

const EDITORS = 10;
const CHARS_PER_SEC = 5;
const SECONDS = Number(process.env.COEDIT_SECONDS ?? 60);

const round = (n: number) => Math.round(n * 100) / 100;
function quantiles(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => round(s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN);
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: round(s[s.length - 1] ?? NaN) };
}

/** Types CHARS_PER_SEC characters a second for SECONDS, each editor offset so keystrokes interleave. */
async function typeFor(editors: number, type: (editor: number, i: number) => void): Promise<void> {
  const interval = 1000 / CHARS_PER_SEC;
  const total = Math.floor(SECONDS * CHARS_PER_SEC);
  const start = performance.now();
  const next = new Array<number>(editors).fill(0);
  for (;;) {
    const now = performance.now() - start;
    let left = false;
    for (let e = 0; e < editors; e++) {
      while (next[e]! < total && now >= next[e]! * interval + (e * interval) / editors) type(e, next[e]!++);
      if (next[e]! < total) left = true;
    }
    if (!left) return;
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function coeditRun() {
  const server = await startTestServer();
  try {
    const owner = await signUp(server.url, { name: "Editor 0" });
    const users: TestUser[] = [owner];
    for (let i = 1; i < EDITORS; i++) {
      const u = await signUpInNewWorkspace(server, `Editor ${i}`);
      await server.services.db.membership.create({
        data: { workspaceId: owner.workspaceId, userId: u.userId, role: "member" },
      });
      users.push(u);
    }
    const room = await createPipelineRow(server.services.db, owner.workspaceId);
    const editors: Editor[] = [];
    for (const u of users) editors.push(await openEditor(await openRoomClient(server.url, u.client.cookie), room));

    // When each keystroke was typed, by its Yjs id (client, clock); arrivals decoded from each update.
    const typedAt = new Map<string, number>();
    const latencies: number[] = [];
    for (const e of editors)
      e.doc.on("update", (update: Uint8Array, origin: unknown) => {
        if (origin !== FROM_SERVER) return;
        const now = performance.now();
        for (const s of Y.decodeUpdate(update).structs) {
          if (!(s instanceof Y.Item)) continue;
          for (let c = 0; c < s.length; c++) {
            const t = typedAt.get(`${s.id.client}:${s.id.clock + c}`);
            if (t !== undefined) latencies.push(now - t);
          }
        }
      });
    const started = performance.now();
    await typeFor(EDITORS, (i, n) => {
      const e = editors[i]!;
      const text = e.doc.getText("yaml");
      typedAt.set(`${e.doc.clientID}:${Y.getState(e.doc.store, e.doc.clientID)}`, performance.now());
      // Each types on a line of their own, near the others (the same region of the file).
      text.insert(Math.min(text.length, 40 + i), String.fromCharCode(97 + ((n + i) % 26)));
    });
    const typingMs = performance.now() - started;
    const text = await settled(editors, "yaml", 60_000);
    const late = await openEditor(await openRoomClient(server.url, owner.client.cookie), room);
    const converged = textOf(late) === text && editors.every((e) => textOf(e) === text);

    const db = server.services.db;
    const updates = await db.coeditUpdate.findMany({ where: { room }, select: { data: true } });
    const doc = await db.coeditDoc.findUniqueOrThrow({ where: { room } });
    const storedNow = doc.snapshot.byteLength + updates.reduce((n, u) => n + u.data.byteLength, 0);
    const minutes = typingMs / 60_000;
    const keystrokes = EDITORS * Math.floor(SECONDS * CHARS_PER_SEC);
    for (const e of [...editors, late]) {
      e.close();
      e.client.close();
    }
    return {
      editors: EDITORS,
      charsPerSecondEach: CHARS_PER_SEC,
      seconds: SECONDS,
      keystrokes,
      remoteLatencyMs: quantiles(latencies),
      // Every keystroke reached every other editor.
      deliveries: { expected: keystrokes * (EDITORS - 1), measured: latencies.length },
      converged,
      finalTextLength: text.length,
      storedBytesNow: storedNow,
      storedBytesPerMinute: Math.round(storedNow / minutes),
      snapshotBytes: doc.snapshot.byteLength,
      updatesNotYetCompacted: updates.length,
    };
  } finally {
    await server.stop();
  }
}

/** The baseline: the same keystrokes, each a message relayed to the room's other sockets by Socket.IO. */
async function rawRun() {
  const http = createServer();
  const io = new Server(http, { serveClient: false });
  io.on("connection", (s) => {
    void s.join("room");
    s.on("edit", (m: unknown) => s.to("room").emit("edit", m));
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const sockets: Socket[] = [];
  for (let i = 0; i < EDITORS; i++) {
    const s = connect(url, { forceNew: true, transports: ["websocket"] });
    await new Promise<void>((r) => s.once("connect", () => r()));
    sockets.push(s);
  }
  const latencies: number[] = [];
  for (const s of sockets)
    s.on("edit", (m: { at: number }) => {
      latencies.push(performance.now() - m.at);
    });
  await typeFor(EDITORS, (i, n) => {
    sockets[i]!.emit("edit", { at: performance.now(), pos: 40 + i, text: String.fromCharCode(97 + ((n + i) % 26)) });
  });
  await new Promise((r) => setTimeout(r, 500));
  for (const s of sockets) s.close();
  await new Promise<void>((r) => void io.close(() => r()));
  return { remoteLatencyMs: quantiles(latencies), deliveries: latencies.length };
}

export default async function coedit() {
  // The machine may be shared: how busy it was (load averages) when the runs began and ended.
  const loadAtStart = os.loadavg().map(round);
  const yjs = await coeditRun();
  const raw = await rawRun();
  return {
    note: "One node; the 10 clients run in the bench's process beside the server, on the same 2 shared cores.",
    loadAverages: { atStart: loadAtStart, atEnd: os.loadavg().map(round) },
    oneNode: yjs,
    baselineRawSocketIo: raw,
    targetP99Ms: 50,
  };
}
