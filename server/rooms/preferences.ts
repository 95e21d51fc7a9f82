/**
 * A user's own choices about what rooms share of them, kept on the server (table user_preference) so
 * they hold on every device: today "hide my position" — the server keeps what they look at in a room
 * (presence focus) to itself; others still see that they are there.
 *
 * A change is announced to in-process listeners (server/realtime/presence.ts drops the user's focus at
 * once); presence reads the stored choice whenever a socket of the user joins a room.
 */
import { z } from "zod";
import { requireUser, type Actor } from "../auth/access.ts";
import type { Db } from "../db/client.ts";

export const preferencesInput = z.object({ hidePosition: z.boolean() }).strict();

export interface Preferences {
  hidePosition: boolean;
}

export type PreferenceListener = (change: { userId: string } & Preferences) => void;

const DEFAULTS: Preferences = { hidePosition: false };

/** `onListenerError`: a listener that threw (logged; the saved choice stands, the others still hear). */
export function createPreferences(db: Db, onListenerError: (err: unknown) => void) {
  const listeners = new Set<PreferenceListener>();

  async function of(userId: string): Promise<Preferences> {
    const row = await db.userPreference.findUnique({ where: { userId }, select: { hidePosition: true } });
    return row ?? DEFAULTS;
  }

  return {
    of,
    get: (actor: Actor) => of(requireUser(actor).userId),

    async set(actor: Actor, input: z.infer<typeof preferencesInput>): Promise<Preferences> {
      const { userId } = requireUser(actor);
      const saved = await db.userPreference.upsert({
        where: { userId },
        create: { userId, hidePosition: input.hidePosition },
        update: { hidePosition: input.hidePosition },
        select: { hidePosition: true },
      });
      for (const listener of listeners)
        try {
          listener({ userId, ...saved });
        } catch (err) {
          onListenerError(err);
        }
      return saved;
    },

    /** Returns the unsubscribe function. */
    onChange(listener: PreferenceListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type UserPreferences = ReturnType<typeof createPreferences>;
