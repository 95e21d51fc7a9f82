/**
 * Workspaces a user belongs to and who belongs to a workspace: create one, switch the current one,
 * list members, change a role, remove someone, leave. Every operation names its workspace and is
 * authorized against that workspace's membership; the "current workspace" is only what the app shows
 * first and never stands in for a workspace id.
 *
 * Invariant: a workspace always keeps at least one owner. Changes that could take the last owner away
 * run in a transaction that first locks the workspace row, so two owners demoting each other at the
 * same moment cannot both succeed (PostgreSQL runs READ COMMITTED; SQLite transactions are exclusive).
 */
import { lockWorkspace } from "./lock.ts";
import { z } from "zod";
import { requireRole, requireUser, type Actor } from "../auth/access.ts";
import { roleSchema, type Role } from "../auth/roles.ts";
import type { Db, Tx } from "../db/client.ts";
import { conflict, forbidden, notFound } from "../errors.ts";
import { seedBuiltinPrompts } from "../prompts/builtins.ts";
import type { MembershipChanges } from "./membership-changes.ts";

const id = z.string().min(1).max(100);
export const workspaceIdInput = z.object({ workspaceId: id });
export const createWorkspaceInput = z.object({
  name: z.string().trim().min(1, "Give the workspace a name.").max(100, "Use at most 100 characters."),
});
export const memberInput = z.object({ workspaceId: id, userId: id });
export const changeRoleInput = memberInput.extend({ role: roleSchema });

export interface MyWorkspace {
  id: string;
  name: string;
  role: Role;
}

/** The workspace switched to most recently, else the oldest membership (rows come oldest first). */
function currentOf(rows: { workspaceId: string; selectedAt: Date | null }[]): string | null {
  let current: { workspaceId: string; selectedAt: Date | null } | undefined;
  for (const row of rows) {
    if (!current || (row.selectedAt && (!current.selectedAt || row.selectedAt > current.selectedAt))) current = row;
  }
  return current?.workspaceId ?? null;
}

/** Makes `workspaceId` the user's current workspace (they must be a member; callers check). */
export async function markSelected(db: Db | Tx, workspaceId: string, userId: string): Promise<void> {
  await db.membership.update({
    where: { workspaceId_userId: { workspaceId, userId } },
    data: { selectedAt: new Date() },
  });
}

/**
 * Takes the workspace row's write lock for the rest of the transaction (a no-op update), so owner
 * changes of one workspace run one after the other, each seeing the previous one's result.
 */
/**
 * Everyone who was an owner has seen the workspace's invite links (only owners can list them), so an
 * owner who is removed or demoted could come back through one: the open ones are revoked.
 */
async function revokeOpenInvites(tx: Tx, workspaceId: string): Promise<number> {
  const { count } = await tx.invite.updateMany({
    where: { workspaceId, usedAt: null, revokedAt: null, expiresAt: { gt: new Date() } },
    data: { revokedAt: new Date() },
  });
  return count;
}

export function createMemberService(db: Db, changes: MembershipChanges) {
  /** The target's membership, with the workspace's name and how many owners it has (inside `tx`). */
  async function target(tx: Tx, workspaceId: string, userId: string) {
    const membership = await tx.membership.findUnique({
      where: { workspaceId_userId: { workspaceId, userId } },
      include: { user: { select: { name: true } }, workspace: { select: { name: true } } },
    });
    if (!membership) throw notFound("That person is not a member of this workspace. Reload the member list.");
    const owners = await tx.membership.count({ where: { workspaceId, role: "owner" } });
    return { ...membership, role: roleSchema.parse(membership.role), owners };
  }

  /** Refuses a change that would leave the workspace without an owner. */
  function keepAnOwner(t: Awaited<ReturnType<typeof target>>, self: boolean, then: string): void {
    if (t.role !== "owner" || t.owners > 1) return;
    const who = self ? "You are" : `${t.user.name} is`;
    throw conflict(`${who} the only owner of “${t.workspace.name}”: make someone else an owner first, then ${then}.`);
  }

  return {
    /** The actor's workspaces (oldest membership first) with their role, and which one is current. */
    async mine(actor: Actor): Promise<{ workspaces: MyWorkspace[]; currentWorkspaceId: string | null }> {
      const user = requireUser(actor);
      const rows = await db.membership.findMany({
        where: { userId: user.userId },
        include: { workspace: { select: { id: true, name: true } } },
        // cuid ids grow within a process: they order rows written in the same millisecond.
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      return {
        workspaces: rows.map((m) => ({ id: m.workspace.id, name: m.workspace.name, role: roleSchema.parse(m.role) })),
        currentWorkspaceId: currentOf(rows),
      };
    },

    /**
     * A new workspace owned by the actor, with the built-in prompts, and made current. Only someone
     * who is a member or owner somewhere may create one: a read-only viewer (or someone removed from
     * everything) must not gain a workspace of their own to spend the server's model key in.
     */
    async create(actor: Actor, input: z.infer<typeof createWorkspaceInput>): Promise<MyWorkspace> {
      const user = requireUser(actor);
      const canCreate = await db.membership.count({
        where: { userId: user.userId, role: { in: ["owner", "member"] } },
      });
      if (canCreate === 0) {
        throw forbidden(
          "Only members and owners can create a workspace. Ask an owner of your workspace to make you a member.",
        );
      }
      return db.$transaction(async (tx) => {
        const ws = await tx.workspace.create({ data: { name: input.name } });
        await tx.membership.create({
          data: { workspaceId: ws.id, userId: user.userId, role: "owner", selectedAt: new Date() },
        });
        // In the same transaction: a failure leaves no workspace without its prompts behind.
        await seedBuiltinPrompts(tx, ws.id);
        return { id: ws.id, name: ws.name, role: "owner" as const };
      });
    },

    /** Makes a workspace the actor's current one (any member, viewers included). */
    async switchTo(actor: Actor, workspaceId: string): Promise<{ workspaceId: string }> {
      const user = requireUser(actor);
      await requireRole(db, actor, workspaceId, "viewer");
      await markSelected(db, workspaceId, user.userId);
      return { workspaceId };
    },

    async listMembers(actor: Actor, workspaceId: string) {
      await requireRole(db, actor, workspaceId, "viewer");
      const rows = await db.membership.findMany({
        where: { workspaceId },
        include: { user: { select: { id: true, name: true, email: true } } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      return rows.map((m) => ({
        userId: m.user.id,
        name: m.user.name,
        email: m.user.email,
        role: roleSchema.parse(m.role),
        joinedAt: m.createdAt,
      }));
    },

    /** Owners only. The last owner cannot be demoted. Demoting an owner revokes the open invite links. */
    async changeRole(actor: Actor, input: z.infer<typeof changeRoleInput>) {
      const user = requireUser(actor);
      const result = await db.$transaction(async (tx) => {
        await lockWorkspace(tx, input.workspaceId);
        await requireRole(tx, actor, input.workspaceId, "owner");
        const t = await target(tx, input.workspaceId, input.userId);
        if (t.role === input.role) return { role: t.role, revokedInvites: 0, changed: false };
        if (input.role !== "owner") {
          const self = input.userId === user.userId;
          keepAnOwner(t, self, self ? "change your role" : "change their role");
        }
        await tx.membership.update({ where: { id: t.id }, data: { role: input.role } });
        const revokedInvites = t.role === "owner" ? await revokeOpenInvites(tx, input.workspaceId) : 0;
        return { role: input.role, revokedInvites, changed: true };
      });
      if (result.changed) {
        await changes.emit({ kind: "role", workspaceId: input.workspaceId, userId: input.userId, role: result.role });
      }
      return { role: result.role, revokedInvites: result.revokedInvites };
    },

    /**
     * Owners only; removing yourself is allowed unless you are the last owner. When this returns, the
     * removed user's live connections (on this node) have already lost the workspace's rooms.
     */
    async removeMember(actor: Actor, input: z.infer<typeof memberInput>) {
      const user = requireUser(actor);
      const revokedInvites = await db.$transaction(async (tx) => {
        await lockWorkspace(tx, input.workspaceId);
        await requireRole(tx, actor, input.workspaceId, "owner");
        const t = await target(tx, input.workspaceId, input.userId);
        const self = input.userId === user.userId;
        keepAnOwner(t, self, self ? "leave" : "remove them");
        await tx.membership.delete({ where: { id: t.id } });
        return t.role === "owner" ? revokeOpenInvites(tx, input.workspaceId) : 0;
      });
      await changes.emit({ kind: "removed", workspaceId: input.workspaceId, userId: input.userId });
      return { revokedInvites };
    },

    /** Any member may leave, except the last owner. */
    async leave(actor: Actor, workspaceId: string) {
      const user = requireUser(actor);
      await db.$transaction(async (tx) => {
        await lockWorkspace(tx, workspaceId);
        await requireRole(tx, actor, workspaceId, "viewer");
        const t = await target(tx, workspaceId, user.userId);
        keepAnOwner(t, true, "leave");
        await tx.membership.delete({ where: { id: t.id } });
        if (t.role === "owner") await revokeOpenInvites(tx, workspaceId);
      });
      await changes.emit({ kind: "left", workspaceId, userId: user.userId });
    },
  };
}

export type MemberService = ReturnType<typeof createMemberService>;
