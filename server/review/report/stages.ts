/**
 * The noise-control stages in one line, for the review page and the Markdown export. The web UI
 * imports this file: keep it free of runtime imports (types only).
 */
import type { StageCounts } from "./schema.ts";

/** "12 proposed · 2 dropped (location) · 1 unverified removed · 9 kept" — zero stages are left out. */
export function describeStages(s: StageCounts): string {
  const parts: string[] = [`${s.proposed} proposed`];
  const add = (n: number, text: string) => n > 0 && parts.push(`${n} ${text}`);
  add(s.repairedLocation, "location repaired");
  add(s.droppedUnlocatable, "dropped (location)");
  add(s.droppedDuplicate, "duplicates merged");
  add(s.droppedDismissed, "dropped (marked false positive)");
  add(s.droppedBelowConfidence, "below the confidence threshold");
  add(s.droppedBelowSeverity, "below the severity floor");
  add(s.droppedUnverified, "unverified removed");
  parts.push(`${s.kept} kept`);
  return parts.join(" · ");
}
