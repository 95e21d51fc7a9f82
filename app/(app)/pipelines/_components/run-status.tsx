"use client";
/** A pipeline run's status as every run status in the app looks: the shared StatusPill ("failed" red). */
import { StatusPill } from "@/app/_components/review/badges.tsx";
import { REVIEW_STATUSES, type ReviewStatus } from "@/server/shared/statuses.ts";

/** Runs are running | completed | failed | cancelled, all statuses the pill knows; anything else shows as failed. */
const known = (s: string): ReviewStatus =>
  (REVIEW_STATUSES as readonly string[]).includes(s) ? (s as ReviewStatus) : "failed";

export function RunStatus({ status }: { status: string }) {
  return <StatusPill status={known(status)} />;
}
