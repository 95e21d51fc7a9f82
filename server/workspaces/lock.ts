import type { Tx } from "../db/client.ts";

/**
 * Serialises transactions that check-then-write something per workspace (the last owner, the
 * running-run limit): a no-op update of the workspace's row takes its row lock in PostgreSQL, and
 * SQLite's write lock, until the transaction ends.
 */
export async function lockWorkspace(tx: Tx, workspaceId: string): Promise<void> {
  await tx.$executeRaw`UPDATE "workspace" SET "name" = "name" WHERE "id" = ${workspaceId}`;
}
