/**
 * The start-review form's draft and what it sends: the checks the browser makes before asking (each
 * with the message the user reads) and the `reviews.start` input built from a draft.
 */
import type { inferRouterInputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router.ts";
import { ENVIRONMENT } from "../model-connections.tsx";
import { SEVERITIES } from "./types.ts";

export type ScopeKind = "project" | "paths" | "diff";
export type StartReviewInput = inferRouterInputs<AppRouter>["reviews"]["start"];

export interface Draft {
  projectUid: string;
  engine: "static" | "agent";
  scope: ScopeKind;
  paths: string;
  base: string;
  head: string;
  promptUid: string;
  connectionUid: string; // a connection's uid, ENVIRONMENT for the server's default, "" = none chosen yet
  model: string;
  maxIterations: string;
  maxCostUsd: string;
  verify: boolean;
  unverified: "keep" | "drop";
  minConfidence: string;
  minSeverity: (typeof SEVERITIES)[number];
}

export const initialDraft = (projectUid: string): Draft => ({
  projectUid,
  engine: "static",
  scope: "project",
  paths: "",
  base: "",
  head: "HEAD",
  promptUid: "",
  connectionUid: "",
  model: "",
  maxIterations: "100",
  maxCostUsd: "",
  verify: true,
  unverified: "keep",
  minConfidence: "0",
  minSeverity: "info",
});

/** The input to send, or the message that says what is missing (the server's zod checks the rest). */
export function startReviewInput(draft: Draft): { input: StartReviewInput } | { error: string } {
  const agent = draft.engine === "agent";
  if (!draft.projectUid) return { error: "Choose the project to review." };
  const paths = draft.paths
    .split("\n")
    .map((p) => p.trim())
    .filter(Boolean);
  if (draft.scope === "paths" && paths.length === 0)
    return { error: "List at least one path or glob, one per line (e.g. src/api/** or server.js)." };
  if (draft.scope === "diff" && (!draft.base.trim() || !draft.head.trim()))
    return { error: "A diff review needs both refs: the base (e.g. main) and the head (e.g. HEAD or a branch)." };
  if (agent && !draft.connectionUid)
    return { error: "Choose the model connection the agent uses. An owner adds one in Settings → Model providers." };
  const maxIterations = Number(draft.maxIterations);
  const maxCostUsd = draft.maxCostUsd.trim() ? Number(draft.maxCostUsd) : undefined;
  const minConfidence = Number(draft.minConfidence || 0);
  return {
    input: {
      projectUid: draft.projectUid,
      engine: draft.engine,
      scope:
        draft.scope === "project"
          ? { kind: "project" }
          : draft.scope === "paths"
            ? { kind: "paths", paths }
            : { kind: "diff", base: draft.base.trim(), head: draft.head.trim() },
      ...(agent
        ? {
            promptUid: draft.promptUid || undefined,
            connectionUid: draft.connectionUid === ENVIRONMENT ? null : draft.connectionUid,
            model: draft.model.trim() || undefined,
            budget: { maxIterations, ...(maxCostUsd !== undefined ? { maxCostUsd } : {}) },
          }
        : {}),
      settings: {
        verify: agent ? draft.verify : false,
        unverified: draft.unverified,
        minConfidence,
        minSeverity: draft.minSeverity,
      },
    },
  };
}
