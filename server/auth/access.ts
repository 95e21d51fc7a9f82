/**
 * The one authorization check. tRPC procedures (through the services) and the Socket.IO handshake
 * both come here: no session → unauthenticated (401); not a member of the workspace, or a role too
 * weak for the action → forbidden (403).
 */
import type { Db, Tx } from "../db/client.ts";
import { forbidden, unauthenticated } from "../errors.ts";
import { roleAtLeast, roleLabel, roleSchema, type Role } from "./roles.ts";

/** Who is acting: the signed-in user, or nobody. */
export type Actor = { userId: string; email: string; name: string } | null;

const verbs: Record<Role, string> = {
  owner: "manage this workspace",
  member: "make changes here",
  viewer: "see this workspace",
};

const withArticle = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

export function requireUser(actor: Actor): NonNullable<Actor> {
  if (!actor) throw unauthenticated();
  return actor;
}

/** Returns the actor's role in the workspace, or throws 401/403. `db` may be a transaction client. */
export async function requireRole(db: Db | Tx, actor: Actor, workspaceId: string, needed: Role): Promise<Role> {
  const user = requireUser(actor);
  const membership = await db.membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId: user.userId } },
    select: { role: true },
  });
  return checkRole(membership?.role ?? null, needed);
}

/** requireRole's check of a membership the caller read already (with the thing it asks about): null is none. */
export function checkRole(memberRole: string | null, needed: Role): Role {
  if (memberRole === null) throw forbidden("You are not a member of this workspace.");
  const role = roleSchema.parse(memberRole);
  if (!roleAtLeast(role, needed)) {
    throw forbidden(
      `You are ${withArticle(roleLabel[role])} in this workspace; only ${needed === "owner" ? "an owner" : "a member or owner"} can ${verbs[needed]}.`,
    );
  }
  return role;
}
