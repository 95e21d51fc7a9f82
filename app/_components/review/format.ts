/** Words and numbers shown on review pages (kept in one place so every page says it the same way). */
import type { ReviewListItem, Severity } from "./types.ts";

export const severityRank = (s: string) => ["critical", "high", "medium", "low", "info"].indexOf(s);

/** "static analysis — no LLM", or the connection and model: "Team Claude · claude-sonnet-4-6". */
export function engineLabel(
  r: Pick<ReviewListItem, "engine" | "provider" | "model"> & { connectionName?: string | null },
): string {
  if (r.engine === "static") return "static analysis — no LLM";
  if (r.connectionName) return [r.connectionName, r.model].filter(Boolean).join(" · ");
  return [r.provider, r.model].filter(Boolean).join(" / ") || "agent";
}

export function scopeLabel(scope: ReviewListItem["scope"]): string {
  if (scope.kind === "project") return "whole project";
  if (scope.kind === "paths") return scope.paths.length === 1 ? scope.paths[0]! : `${scope.paths.length} paths`;
  return `diff ${scope.base}..${scope.head}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** `local` false: the server's form (en-US, UTC), for a render that must match the server's HTML
 * (app/_lib/use-hydrated.ts); true: the browser's locale and time zone. */
export const formatDate = (d: string | Date | null | undefined, local = true) =>
  d
    ? local
      ? new Date(d).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short", hourCycle: "h23" })
      : `${new Date(d).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short", hourCycle: "h23", timeZone: "UTC" })} UTC`
    : "—";

/** A count with the locale's digit grouping (`local` as for formatDate). */
export const formatCount = (n: number, local = true) => n.toLocaleString(local ? undefined : "en-US");

export function formatTokens(n: number, local = true): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(n >= 100_000 ? 0 : 1)}k` : formatCount(n, local);
}

export function formatCost(usd: number | undefined): string | null {
  if (usd === undefined) return null;
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** Where "Open in code" goes: the project's code viewer with the lines highlighted. */
export function codeHref(
  projectUid: string,
  snapshotUid: string | null,
  file: string,
  startLine: number,
  endLine?: number,
): string {
  const q = new URLSearchParams({ ...(snapshotUid ? { snapshot: snapshotUid } : {}), file, line: String(startLine) });
  if (endLine && endLine > startLine) q.set("end", String(endLine));
  return `/projects/${projectUid}?${q.toString()}`;
}

export const SEVERITY_COLOR: Record<Severity, string> = {
  critical: "#b91c1c",
  high: "#ea580c",
  medium: "#d97706",
  low: "#2563eb",
  info: "#71717a",
};
