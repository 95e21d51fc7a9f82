/**
 * A running answer's usage as it streams (runner.ts), written to its row once the row is: one write
 * at a time, the latest usage wins, so today's spend (budget.ts) counts answers still running.
 */
import type { Db, AskMessage as AskMessageRow } from "../db/client.ts";
import type { Logger } from "../logger.ts";

export function usageWriter(db: Db, log: Logger, answerId: string, written: Promise<void>) {
  /** The latest usage not yet written, and the write in flight (one at a time, the latest wins). */
  let pendingUsage: Partial<AskMessageRow> | null = null;
  let usageWrites: Promise<void> | null = null;
  return {
    write(data: Partial<AskMessageRow>): void {
      pendingUsage = data;
      usageWrites ??= (async () => {
        await written;
        while (pendingUsage) {
          const next = pendingUsage;
          pendingUsage = null;
          await db.askMessage
            .update({ where: { id: answerId }, data: next })
            .catch((err: unknown) => log.warn({ err, answerId }, "an answer's usage so far was not written"));
        }
        usageWrites = null;
      })();
    },
    /** The answer ends: usage not yet written is dropped, and the write in flight awaited (the end's write follows). */
    async settle(): Promise<void> {
      pendingUsage = null;
      await usageWrites;
    },
  };
}
