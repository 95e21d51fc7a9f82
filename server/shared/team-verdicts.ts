/**
 * The team's judgement of a review's findings: each member's vote on a finding — real, false positive,
 * won't fix, or a duplicate of another finding of the review — the finding's team verdict (the verdict
 * most votes gave; a tie is no verdict), and "confirmed by the team: x of y", the share of judged
 * findings the team found real (the review's precision as the team judged it).
 */
import { z } from "zod";

export const VERDICTS = ["real", "false_positive", "wont_fix", "duplicate"] as const;
export const verdictSchema = z.enum(VERDICTS);
export type Verdict = z.infer<typeof verdictSchema>;

export const VERDICT_LABEL: Record<Verdict, string> = {
  real: "real",
  false_positive: "false positive",
  wont_fix: "won't fix",
  duplicate: "duplicate",
};

export const voteSchema = z.object({
  userId: z.string(),
  name: z.string(),
  verdict: verdictSchema,
  /** The fingerprint of the finding this one duplicates (verdict duplicate only). */
  duplicateOf: z.string().nullable(),
});
export type Vote = z.infer<typeof voteSchema>;

/** The verdict most votes gave; null with no votes or a tie at the top. */
export function teamVerdict(votes: readonly Pick<Vote, "verdict">[]): Verdict | null {
  const counts = new Map<Verdict, number>();
  for (const v of votes) counts.set(v.verdict, (counts.get(v.verdict) ?? 0) + 1);
  let best: Verdict | null = null;
  let top = 0;
  let tied = false;
  for (const [verdict, n] of counts) {
    if (n > top) [best, top, tied] = [verdict, n, false];
    else if (n === top) tied = true;
  }
  return tied ? null : best;
}

/** Of the findings with a team verdict, how many the team found real. */
export function confirmedByTeam(findings: readonly { votes: readonly Pick<Vote, "verdict">[] }[]): {
  confirmed: number;
  judged: number;
} {
  let confirmed = 0;
  let judged = 0;
  for (const f of findings) {
    const v = teamVerdict(f.votes);
    if (!v) continue;
    judged++;
    if (v === "real") confirmed++;
  }
  return { confirmed, judged };
}
