/**
 * Accounts beyond what better-auth does: the first sign-up sets Argus up (owner of a new workspace)
 * and needs the one-time setup token from the server log (server/auth/setup-token.ts); later sign-ups
 * need an invite link, which adds the newcomer as a member or a read-only viewer.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { requireRole, requireUser, type Actor } from "../auth/access.ts";
import type { Auth } from "../auth/auth.ts";
import { MIN_PASSWORD_LENGTH } from "../auth/auth.ts";
import { roleSchema, type Role } from "../auth/roles.ts";
import type { SetupToken } from "../auth/setup-token.ts";
import { isUniqueViolation, type Db, type Invite, type Tx } from "../db/client.ts";
import { conflict, forbidden, invalid, notFound, type DomainError } from "../errors.ts";
import { uuid5 } from "../lib/uuid5.ts";
import { seedBuiltinPrompts } from "../prompts/builtins.ts";
import { createMemberService, markSelected } from "./members.ts";
import type { MembershipChanges } from "./membership-changes.ts";

export const signUpInput = z.object({
  name: z.string().trim().min(1, "Tell us your name.").max(100),
  email: z.email("Enter a valid email address.").max(254),
  password: z
    .string()
    .min(MIN_PASSWORD_LENGTH, `Use at least ${MIN_PASSWORD_LENGTH} characters.`)
    .max(128, "Use at most 128 characters."),
  inviteToken: z.string().min(1).max(100).optional(),
  /** The token of the setup link printed in the server log; needed to create the first owner. */
  setupToken: z.string().max(200).optional(),
});
export const createInviteInput = z.object({
  workspaceId: z.string().min(1),
  role: roleSchema.exclude(["owner"]),
  expiresInDays: z.number().int().min(1).max(90).default(7),
});
export const inviteTokenInput = z.object({ token: z.string().min(1).max(100) });

const SETUP_RACE = "Someone else just set Argus up. Ask them for an invite link.";
const FIRST_WORKSPACE_ID = uuid5("workspace:first");

export type InviteStatus = "valid" | "used" | "expired" | "revoked";

function inviteStatus(invite: Invite, now = new Date()): InviteStatus {
  if (invite.revokedAt) return "revoked";
  if (invite.usedAt) return "used";
  if (invite.expiresAt <= now) return "expired";
  return "valid";
}

const inviteProblem: Record<Exclude<InviteStatus, "valid">, string> = {
  used: "This invite link has already been used. Ask the workspace owner for a new one.",
  expired: "This invite link has expired. Ask the workspace owner for a new one.",
  revoked: "This invite link was revoked. Ask the workspace owner for a new one.",
};

/** Marks the invite used and adds the membership, atomically; a link works exactly once. */
async function redeemInvite(tx: Tx, token: string, userId: string): Promise<{ workspaceId: string; role: Role }> {
  const invite = await tx.invite.findUnique({ where: { token } });
  if (!invite) throw notFound("This invite link is not valid. Check that you copied all of it.");
  const existing = await tx.membership.findUnique({
    where: { workspaceId_userId: { workspaceId: invite.workspaceId, userId } },
  });
  // Someone already in the workspace keeps their role, and the link stays usable for its invitee.
  if (existing) return { workspaceId: invite.workspaceId, role: roleSchema.parse(existing.role) };
  const status = inviteStatus(invite);
  if (status !== "valid") throw conflict(inviteProblem[status]);
  const claimed = await tx.invite.updateMany({
    where: { id: invite.id, usedAt: null, revokedAt: null },
    data: { usedAt: new Date(), usedById: userId },
  });
  if (claimed.count !== 1) throw conflict(inviteProblem.used);
  const role = roleSchema.parse(invite.role);
  await tx.membership.create({ data: { workspaceId: invite.workspaceId, userId, role } });
  return { workspaceId: invite.workspaceId, role };
}

/** Maps better-auth's API errors to Argus's domain errors. */
function authError(err: unknown): DomainError | null {
  const e = err as { status?: unknown; body?: { code?: string; message?: string } };
  if (typeof e?.status !== "string" || !e.body) return null;
  if (e.body.code?.startsWith("USER_ALREADY_EXISTS")) {
    return conflict("An account with this email already exists. Sign in instead.");
  }
  if (e.status === "BAD_REQUEST" || e.status === "UNPROCESSABLE_ENTITY")
    return invalid(e.body.message ?? "The sign-up details were not accepted.");
  return null;
}

/** Setup is over once any workspace has an owner; accounts without one (strays) do not count. */
async function hasOwner(db: Db | Tx): Promise<boolean> {
  return (await db.membership.count({ where: { role: "owner" }, take: 1 })) > 0;
}

/**
 * `changes` announces membership changes (removals, role changes, departures) to whoever holds live
 * connections: server/realtime subscribes through `onMembershipChanged`.
 */
export function createWorkspaceService(db: Db, auth: Auth, setup: SetupToken, changes: MembershipChanges) {
  const members = createMemberService(db, changes);
  return {
    ...members,
    onMembershipChanged: changes.subscribe,

    /** True until a workspace owner exists: the sign-up page then creates the owner (with the setup link). */
    async needsSetup(): Promise<boolean> {
      return !(await hasOwner(db));
    },

    /**
     * Creates the account, signs it in (returns better-auth's Set-Cookie headers) and places it in a
     * workspace. Nothing is left half-done: if placing the user fails, the account is removed.
     */
    async signUp(input: z.infer<typeof signUpInput>): Promise<{ headers: Headers; workspaceId: string; role: Role }> {
      if (!input.inviteToken && !(await this.needsSetup())) {
        throw forbidden("Argus is already set up. Ask a workspace owner for an invite link, or sign in.");
      }
      if (input.inviteToken) await this.inviteInfo(input.inviteToken, { requireValid: true });
      else setup.check(input.setupToken);

      let created: { headers: Headers; response: { user: { id: string } } };
      try {
        created = await auth.api.signUpEmail({
          body: { name: input.name, email: input.email, password: input.password },
          returnHeaders: true,
        });
      } catch (err) {
        throw authError(err) ?? err;
      }
      const userId = created.response.user.id;
      try {
        const placed = await db.$transaction(async (tx) => {
          if (input.inviteToken) return redeemInvite(tx, input.inviteToken, userId);
          if (await hasOwner(tx)) throw conflict(SETUP_RACE);
          // The first workspace has a fixed id: of two first visitors whose transactions overlap,
          // the second insert hits the primary key, so exactly one becomes the owner.
          const ws = await tx.workspace.create({
            data: { id: FIRST_WORKSPACE_ID, name: `${input.name.split(/\s+/)[0]}'s workspace` },
          });
          await tx.membership.create({ data: { workspaceId: ws.id, userId, role: "owner" } });
          // Seeded in the same transaction: a failure leaves no workspace behind, so setup can be retried.
          await seedBuiltinPrompts(tx, ws.id);
          return { workspaceId: ws.id, role: "owner" as const };
        });
        if (!input.inviteToken) setup.consume();
        return { headers: created.headers, ...placed };
      } catch (err) {
        await db.user.delete({ where: { id: userId } }).catch(() => undefined);
        throw !input.inviteToken && isUniqueViolation(err) ? conflict(SETUP_RACE) : err;
      }
    },

    async me(actor: Actor) {
      const user = requireUser(actor);
      return { user: { id: user.userId, email: user.email, name: user.name }, ...(await members.mine(actor)) };
    },

    /** Public: what an invite link offers, so the invite page can say it before sign-up. */
    async inviteInfo(token: string, opts: { requireValid?: boolean } = {}) {
      const invite = await db.invite.findUnique({
        where: { token },
        include: { workspace: { select: { name: true } } },
      });
      if (!invite) throw notFound("This invite link is not valid. Check that you copied all of it.");
      const status = inviteStatus(invite);
      if (opts.requireValid && status !== "valid") throw conflict(inviteProblem[status]);
      return {
        workspaceName: invite.workspace.name,
        role: roleSchema.parse(invite.role),
        status,
        expiresAt: invite.expiresAt,
      };
    },

    /** A signed-in user joins the invite's workspace (kept at their role if already in it) and lands in it. */
    async acceptInvite(actor: Actor, token: string) {
      const user = requireUser(actor);
      return db.$transaction(async (tx) => {
        const joined = await redeemInvite(tx, token, user.userId);
        await markSelected(tx, joined.workspaceId, user.userId);
        return joined;
      });
    },

    async createInvite(actor: Actor, input: z.infer<typeof createInviteInput>) {
      const user = requireUser(actor);
      await requireRole(db, actor, input.workspaceId, "owner");
      for (;;) {
        try {
          const invite = await db.invite.create({
            data: {
              token: randomBytes(24).toString("base64url"),
              workspaceId: input.workspaceId,
              role: input.role,
              createdById: user.userId,
              expiresAt: new Date(Date.now() + input.expiresInDays * 86_400_000),
            },
          });
          return { id: invite.id, token: invite.token, role: input.role, expiresAt: invite.expiresAt };
        } catch (err) {
          if (!isUniqueViolation(err)) throw err; // a 192-bit token collision: draw again
        }
      }
    },

    async listInvites(actor: Actor, workspaceId: string) {
      await requireRole(db, actor, workspaceId, "owner");
      const invites = await db.invite.findMany({
        where: { workspaceId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: 100,
      });
      return invites.map((i) => ({
        id: i.id,
        token: i.token,
        role: roleSchema.parse(i.role),
        status: inviteStatus(i),
        createdAt: i.createdAt,
        expiresAt: i.expiresAt,
      }));
    },

    async revokeInvite(actor: Actor, id: string) {
      const invite = await db.invite.findUnique({ where: { id } });
      if (!invite) throw notFound("No such invite.");
      await requireRole(db, actor, invite.workspaceId, "owner");
      if (invite.usedAt)
        throw conflict("This invite was already used; revoking it would not remove the person who joined with it.");
      await db.invite.update({ where: { id }, data: { revokedAt: invite.revokedAt ?? new Date() } });
    },
  };
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
