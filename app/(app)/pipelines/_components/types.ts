/** API shapes the pipeline pages use, inferred from the router (never re-declared). */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router.ts";

type Out = inferRouterOutputs<AppRouter>["pipelines"];
export type PipelineInspection = Out["validate"];
export type PipelineList = Out["list"];
export type RunItem = Out["runs"][number];
export type RunDetail = Out["run"];
export type RunComparison = Out["compareRuns"];

/** What the workbench shows: a workspace pipeline (editable by members) or a gallery entry. */
export type WorkbenchTarget = { kind: "workspace"; uid: string } | { kind: "gallery"; key: string };

/** What a pipeline needs to run, as cards and the pipeline page say it (front matter `needs`). */
const NEEDS_LABEL: Record<string, string> = {
  none: "runs offline",
  llm: "needs a model",
  web: "needs web search",
  knowledge: "needs a knowledge base and a model",
};
export const needsLabel = (needs: string | undefined): string => NEEDS_LABEL[needs ?? "none"] ?? `needs ${needs}`;

export const galleryHref = (key: string) => `/pipelines/gallery/${encodeURIComponent(key)}`;
export const pipelineHref = (uid: string) => `/pipelines/${uid}`;
export const runHref = (uid: string) => `/pipelines/runs/${uid}`;
export const compareHref = (a: string, b: string) =>
  `/pipelines/runs/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`;
