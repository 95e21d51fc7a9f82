/**
 * Stop settle time (issue 28, point 5): an agent review of the demo project whose stand-in model
 * takes 8 s per request; once its request is in flight a member's Stop (the room's steer.stop) goes
 * out, and the time until the review's row says completed is measured. Target ≤ 1 s.
 */
import type { RunningServer } from "../../server/main.ts";
import { startScriptedServer } from "../../server/llm/scripted/server.ts";
import { reviewRoom } from "../../server/shared/rooms.ts";
import { openRoomClient } from "../../test/helpers/room-client.ts";
import type { TestUser } from "../../test/helpers/server.ts";

const MODEL_DELAY_MS = 8000;

export async function stopSettle(server: RunningServer, owner: TestUser, runs = 3) {
  const llm = await startScriptedServer({
    script: [{ toolCalls: [{ name: "list_dir", input: { path: "." } }], delayMs: MODEL_DELAY_MS }],
  });
  const room = await openRoomClient(server.url, owner.client.cookie);
  try {
    const connectionUid = crypto.randomUUID();
    await owner.client.ok("mutate", "providers.save", {
      workspaceId: owner.workspaceId,
      uid: connectionUid,
      name: "stand-in (8 s per request)",
      provider: "anthropic",
      baseUrl: llm.url,
      model: "claude-sonnet-5-5",
      apiKey: "sk-bench",
    });
    const { projectUid } = await owner.client.ok<{ projectUid: string }>("mutate", "projects.startDemo", {
      workspaceId: owner.workspaceId,
    });
    const each: number[] = [];
    for (let i = 0; i < runs; i++) {
      llm.reset();
      const { uid } = await owner.client.ok<{ uid: string }>("mutate", "reviews.start", {
        projectUid,
        engine: "agent",
        connectionUid,
        settings: { verify: false },
      });
      await until(() => llm.requests.length === 1, 60_000);
      const asked = performance.now();
      const ack = await room.call("steer.stop", { room: reviewRoom(uid) });
      if (!ack.ok) throw new Error(`steer.stop refused: ${JSON.stringify(ack)}`);
      await until(
        async () => (await server.services.db.review.findUniqueOrThrow({ where: { uid } })).status !== "running",
        30_000,
        10,
      );
      each.push(Math.round(performance.now() - asked));
      const r = await server.services.db.review.findUniqueOrThrow({ where: { uid } });
      if (r.status !== "completed") throw new Error(`stopped review ended ${r.status}: ${r.statusReason}`);
    }
    return { modelDelayMs: MODEL_DELAY_MS, settleMs: [...each].sort((a, b) => a - b)[Math.floor(runs / 2)]!, each };
  } finally {
    room.close();
    await llm.close();
  }
}

async function until(ok: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<void> {
  const started = Date.now();
  while (!(await ok())) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
