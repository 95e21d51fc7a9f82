"use client";
/**
 * The signed-in user and the workspace being viewed, for every page inside the app shell.
 * The choice of workspace is remembered per browser.
 */
import { createContext, useContext } from "react";

export type Role = "owner" | "member" | "viewer";

export interface WorkspaceState {
  user: { id: string; name: string; email: string };
  workspace: { id: string; name: string; role: Role };
  workspaces: { id: string; name: string; role: Role }[];
  selectWorkspace(id: string): void;
  /** Members and owners can change things; viewers only look. */
  canEdit: boolean;
}

export const WorkspaceContext = createContext<WorkspaceState | null>(null);

export function useWorkspace(): WorkspaceState {
  const ctx = useContext(WorkspaceContext);
  if (!ctx) throw new Error("useWorkspace must be used inside the app shell");
  return ctx;
}

export const WORKSPACE_KEY = "argus.workspace";
