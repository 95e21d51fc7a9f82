"use client";
/** A finished review's report in its room: the page's actions, the summary, the scores and noise control, the findings (given), and the files at risk. */
import type { ReactNode } from "react";
import { describeStages } from "@/server/shared/stages.ts";
import { Card } from "../ui.tsx";
import { FilesAtRisk } from "./files-at-risk.tsx";
import { Markdown } from "./markdown.tsx";
import { ReviewScores } from "./review-meta.tsx";
import type { ReviewRoomProps } from "./review-room-props.ts";
import type { SharedReview } from "./types.ts";

export function ReviewReport({
  review: r,
  report,
  code,
  actions,
  children,
}: {
  review: SharedReview;
  report: NonNullable<SharedReview["report"]>;
  code: ReviewRoomProps["code"];
  /** Above the summary (the review page's exports). */
  actions?: ReactNode;
  /** The findings section, between the scores and the files at risk. */
  children: ReactNode;
}) {
  return (
    <>
      {actions}
      <section className="mb-6" aria-labelledby="summary-heading">
        <h2 id="summary-heading" className="mb-2 text-sm font-semibold uppercase tracking-wide text-zinc-500">
          Summary
        </h2>
        <Card className="px-4 py-2">
          <Markdown>{report.summary}</Markdown>
          {report.notes.length > 0 && (
            <ul className="mb-2 list-disc pl-5 text-xs text-zinc-500">
              {report.notes.map((n, i) => (
                <li key={i}>{n}</li>
              ))}
            </ul>
          )}
        </Card>
      </section>
      <section className="mb-6">
        <ReviewScores report={report} />
        <p className="mt-2 text-xs text-zinc-500" aria-label="Noise control">
          Noise control: {describeStages(report.stages)}
        </p>
      </section>
      {children}
      <section className="mb-8" aria-labelledby="files-heading">
        <h2 id="files-heading" className="mb-3 text-sm font-semibold uppercase tracking-wide text-zinc-500">
          Files at risk
        </h2>
        <FilesAtRisk
          files={r.files.length ? r.files : report.files}
          projectUid={code?.projectUid ?? null}
          snapshotUid={code?.snapshotUid ?? null}
        />
      </section>
    </>
  );
}
