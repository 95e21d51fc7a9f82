/** Workspace roles, strongest first. A role can do everything the roles after it can. */
import { z } from "zod";

export const roleSchema = z.enum(["owner", "member", "viewer"]);
export type Role = z.infer<typeof roleSchema>;

const rank: Record<Role, number> = { owner: 3, member: 2, viewer: 1 };

export function roleAtLeast(role: Role, needed: Role): boolean {
  return rank[role] >= rank[needed];
}

export const roleLabel: Record<Role, string> = {
  owner: "owner",
  member: "member",
  viewer: "read-only viewer",
};
