/**
 * The project's memory of false positives, applied to a review's findings (stage 3 of build.ts):
 *
 *  - the exact finding (same fingerprint) the project marked false positive is not raised again;
 *  - a finding SIMILAR to a remembered false positive — a different fingerprint, but
 *      (a) the same rule and the same file, or
 *      (b) the same rule and a near-identical message: the normalized title tokens' overlap
 *          (Jaccard, |A ∩ B| / |A ∪ B|) is at least MESSAGE_OVERLAP —
 *    keeps its place but loses confidence: it is multiplied by SIMILAR_FALSE_POSITIVE_FACTOR, once,
 *    however many remembered findings it resembles, and its explanation says why. The review's own
 *    confidence threshold (settings.minConfidence) then decides, as for any finding, whether it stays.
 *
 * "The same rule" is the static engine's rule id when both findings carry one, else the category
 * (the agent's findings have no rule id). Everything here is deterministic: the remembered finding a
 * note names is the latest dismissed, ties broken by fingerprint.
 */
import type { Finding } from "./schema.ts";

/** A finding the project marked false positive, as it was raised (its latest row), and when. */
export interface RememberedFalsePositive {
  fingerprint: string;
  title: string;
  category: string;
  file: string;
  ruleId?: string | null;
  dismissedAt: Date;
}

/** What the project remembers: a fingerprint alone (suppressed only), or the finding too (also similar ones). */
export type Dismissed = string | RememberedFalsePositive;

/** A similar finding's confidence is multiplied by this: 0.8 → 0.4, under a 0.5 threshold. */
export const SIMILAR_FALSE_POSITIVE_FACTOR = 0.5;
/** Two messages are near-identical from this token overlap on. */
export const MESSAGE_OVERLAP = 0.8;

/** A message's words: lower-cased letters and digits, numbers alone (line numbers, counts) left out. */
export function messageTokens(message: string): Set<string> {
  const words = message.toLowerCase().split(/[^\p{L}\p{N}_]+/u);
  return new Set(words.filter((w) => w && !/^\d+$/.test(w)));
}

/** |A ∩ B| / |A ∪ B| of two messages' tokens; 0 when both are empty. */
export function messageOverlap(a: string, b: string): number {
  const ta = messageTokens(a);
  const tb = messageTokens(b);
  let shared = 0;
  for (const t of ta) if (tb.has(t)) shared++;
  const union = ta.size + tb.size - shared;
  return union === 0 ? 0 : shared / union;
}

const ruleOf = (f: { ruleId?: string | null; category: string }) =>
  f.ruleId ? `rule:${f.ruleId}` : `category:${f.category}`;

/** Why a finding resembles a remembered false positive, or null when it does not. */
export function similarity(finding: Finding, remembered: RememberedFalsePositive): string | null {
  if (finding.fingerprint === remembered.fingerprint || ruleOf(finding) !== ruleOf(remembered)) return null;
  if (finding.file === remembered.file) return "same rule, same file";
  if (messageOverlap(finding.title, remembered.title) >= MESSAGE_OVERLAP) return "same rule, near-identical message";
  return null;
}

export interface MemoryOutcome {
  /** The findings not suppressed, similar ones with their confidence lowered. */
  findings: Finding[];
  /** Suppressed: the exact fingerprint was marked false positive. */
  droppedDismissed: number;
  /** Fingerprints of the findings whose confidence was lowered. */
  lowered: Set<string>;
}

export function applyProjectMemory(findings: Finding[], dismissed: Iterable<Dismissed>): MemoryOutcome {
  const exact = new Set<string>();
  const byRule = new Map<string, RememberedFalsePositive[]>();
  for (const d of dismissed) {
    if (typeof d === "string") {
      exact.add(d);
      continue;
    }
    exact.add(d.fingerprint);
    const list = byRule.get(ruleOf(d)) ?? [];
    list.push(d);
    byRule.set(ruleOf(d), list);
  }
  // Latest first, so a note names the most recent judgement.
  for (const list of byRule.values())
    list.sort(
      (a, b) => b.dismissedAt.getTime() - a.dismissedAt.getTime() || a.fingerprint.localeCompare(b.fingerprint),
    );

  const out: MemoryOutcome = { findings: [], droppedDismissed: 0, lowered: new Set() };
  for (const f of findings) {
    if (exact.has(f.fingerprint)) {
      out.droppedDismissed++;
      continue;
    }
    const match = firstSimilar(f, byRule.get(ruleOf(f)) ?? []);
    if (!match) {
      out.findings.push(f);
      continue;
    }
    out.lowered.add(f.fingerprint);
    out.findings.push(lowered(f, match.remembered, match.why));
  }
  return out;
}

function firstSimilar(f: Finding, candidates: RememberedFalsePositive[]) {
  for (const remembered of candidates) {
    const why = similarity(f, remembered);
    if (why) return { remembered, why };
  }
  return null;
}

function lowered(f: Finding, remembered: RememberedFalsePositive, why: string): Finding {
  const confidence = Math.round(f.confidence * SIMILAR_FALSE_POSITIVE_FACTOR * 100) / 100;
  const on = remembered.dismissedAt.toISOString().slice(0, 10);
  const note =
    `Confidence lowered from ${f.confidence.toFixed(2)} to ${confidence.toFixed(2)}: similar to a finding the team ` +
    `marked false positive on ${on} ("${remembered.title}" in ${remembered.file}; ${why}).`;
  return { ...f, confidence, explanation: `${f.explanation}\n\n${note}` };
}

/** The report's note when memory lowered some findings, and how many the threshold then dropped. */
export function memoryNote(lowered: number, belowThreshold: number): string | null {
  if (lowered === 0) return null;
  return (
    `${lowered} finding(s) similar to ones the team marked false positive lost confidence ` +
    `(×${SIMILAR_FALSE_POSITIVE_FACTOR})${belowThreshold ? `; ${belowThreshold} of them fell below the confidence threshold` : ""}`
  );
}
