/** The noise-control stages of a review report: their counts and the one line that describes them
 * (the review page and the Markdown export say it the same way). */
import { z } from "zod";

/** How many findings each noise-control stage removed, so the report can say so. */
export const stageCountsSchema = z.object({
  proposed: z.number().int().nonnegative(),
  droppedUnlocatable: z.number().int().nonnegative(),
  repairedLocation: z.number().int().nonnegative(),
  droppedDuplicate: z.number().int().nonnegative(),
  droppedDismissed: z.number().int().nonnegative(),
  droppedUnverified: z.number().int().nonnegative(),
  droppedBelowConfidence: z.number().int().nonnegative(),
  droppedBelowSeverity: z.number().int().nonnegative(),
  kept: z.number().int().nonnegative(),
});
export type StageCounts = z.infer<typeof stageCountsSchema>;

/** Every stage at zero, `proposed` aside. */
export const emptyStageCounts = (proposed = 0): StageCounts => ({
  proposed,
  droppedUnlocatable: 0,
  repairedLocation: 0,
  droppedDuplicate: 0,
  droppedDismissed: 0,
  droppedUnverified: 0,
  droppedBelowConfidence: 0,
  droppedBelowSeverity: 0,
  kept: 0,
});

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
