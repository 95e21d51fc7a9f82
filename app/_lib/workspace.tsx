"use client";
/**
 * The signed-in user and the workspace being viewed, for every page inside the app shell.
 * Which workspace is current is kept by the server per user (`account.me`, `workspaces.switch`), so
 * it follows the user across tabs and devices; a link can name one with `?workspace=<id>`. It is only
 * what the app shows: every request still names its workspace and is authorized on its own.
 */
import { createContext, useContext } from "react";

export type Role = "owner" | "member" | "viewer";

export interface WorkspaceState {
  user: { id: string; name: string; email: string };
  workspace: { id: string; name: string; role: Role };
  workspaces: { id: string; name: string; role: Role }[];
  /** Makes another of the user's workspaces current. */
  selectWorkspace(id: string): void;
  /** Members and owners can change things; viewers only look. */
  canEdit: boolean;
  /** Members and owners (somewhere) may create a workspace; the server enforces the same rule. */
  canCreateWorkspace: boolean;
}

export const WorkspaceContext = createContext<WorkspaceState | null>(null);

export function useWorkspace(): WorkspaceState {
  const ctx = useContext(WorkspaceContext);
  if (!ctx) throw new Error("useWorkspace must be used inside the app shell");
  return ctx;
}

/** The query parameter that names a workspace in a link (`/settings?workspace=<id>#members`). */
export const WORKSPACE_PARAM = "workspace";
/** The query parameter that opens the "New workspace" dialog on any page (`/?new-workspace`). */
export const NEW_WORKSPACE_PARAM = "new-workspace";

/** The URL without one query parameter (hash kept), for router.replace after acting on it. */
export function withoutParam(pathname: string, params: URLSearchParams, name: string, hash = ""): string {
  const next = new URLSearchParams(params.toString());
  next.delete(name);
  return `${pathname}${next.size ? `?${next.toString()}` : ""}${hash}`;
}
