/**
 * "Someone's membership changed": the workspace service announces every removal, role change and
 * departure, and whoever holds live connections for that user (server/realtime) checks their rights
 * again at once instead of waiting for its periodic re-check. Plain in-process listeners: domain code
 * knows nothing about sockets, and with several nodes each node's periodic re-check is the backstop.
 */
import type { Role } from "../auth/roles.ts";

export type MembershipChange =
  | { kind: "removed"; workspaceId: string; userId: string }
  | { kind: "left"; workspaceId: string; userId: string }
  | { kind: "role"; workspaceId: string; userId: string; role: Role };

export type MembershipListener = (change: MembershipChange) => Promise<void> | void;

export interface MembershipChanges {
  /** Calls every listener and waits for them, so a caller's "done" means the rights are already gone. */
  emit(change: MembershipChange): Promise<void>;
  /** Returns the unsubscribe function. */
  subscribe(listener: MembershipListener): () => void;
}

export function createMembershipChanges(onListenerError: (err: unknown) => void): MembershipChanges {
  const listeners = new Set<MembershipListener>();
  return {
    async emit(change) {
      // A failing listener must not fail the change that was already committed, nor the other listeners.
      await Promise.all(
        [...listeners].map(async (listener) => {
          try {
            await listener(change);
          } catch (err) {
            onListenerError(err);
          }
        }),
      );
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
