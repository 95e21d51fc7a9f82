/** Opening a LanceDB database: a directory (by default DATA_DIR/lancedb, chosen by the caller). */
import { connect as lanceConnect, type Connection } from "@lancedb/lancedb";
import { setProcessEnv } from "../../config.ts";

// Lance sizes its CPU pool from the core count; with ≤ 2 cores the pool's single blocking thread
// deadlocks building a full-text index once the posting lists exceed one output batch (lancedb#3568:
// every thread asleep, forever — seen here at 250k chunks on 2 cores). Two or more threads avoid it.
// Read when Lance's runtime starts (first use), so setting it at import is early enough.
setProcessEnv("LANCE_CPU_THREADS", "4", true);

export interface Store {
  readonly uri: string;
  /** For the store's own modules only: nothing outside server/retrieval/store touches LanceDB. */
  readonly db: Connection;
  close(): void;
}

export async function connect(uri: string): Promise<Store> {
  const db = await lanceConnect(uri);
  return { uri, db, close: () => db.close() };
}

/** Logical index names become part of table names: LanceDB allows letters, digits, `_ - .`. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,120}$/;

export function assertIndexName(name: string): void {
  if (!NAME.test(name) || name.includes("--"))
    throw new Error(
      `Invalid index name "${name}": use letters, digits, "_", "-" and "." (no "--"), at most 121 characters.`,
    );
}
