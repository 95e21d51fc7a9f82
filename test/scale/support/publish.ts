/**
 * A process that publishes N events into one room, as fast as it can, through its own event bus on
 * the database DATABASE_URL names — a stand-in for one Argus node. Waits for "go" on stdin so that
 * several of them start together; prints the seqs it got, one JSON line, then exits.
 *
 *   DATABASE_URL=… ROOM=review:<uid> N=200 LABEL=a node --import tsx test/scale/support/publish.ts
 */
import pino from "pino";
import { loadConfig } from "../../../server/config.ts";
import { createDb } from "../../../server/db/client.ts";
import { createEventBus } from "../../../server/events/bus.ts";
import type { RoomName } from "../../../server/shared/rooms.ts";

const config = loadConfig(process.env);
const room = process.env.ROOM as RoomName<"review">;
const n = Number(process.env.N);
const label = process.env.LABEL ?? "p";
const db = await createDb(config.db);
const bus = createEventBus({ db, log: pino({ level: "silent" }) });
await db.$queryRawUnsafe("SELECT 1"); // connected before the start signal
process.stdout.write("waiting\n");
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
const stored = await Promise.all(
  Array.from({ length: n }, (_, i) =>
    bus.publish(room, { type: "finding_dismissed", payload: { fingerprint: `${label}-${i}` } }),
  ),
);
process.stdout.write(`${JSON.stringify(stored.map((e) => e.seq))}\n`);
await db.$disconnect();
process.exit(0);
