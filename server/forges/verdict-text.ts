/** The verdict a PR reply states in words (feedback.ts: it counts as its author's vote). */
import type { Verdict } from "../shared/team-verdicts.ts";

/** The verdict a reply states in words, if any ("false positive", "won't fix", "good catch" …). */
export function verdictOfText(text: string): Verdict | null {
  const t = text.toLowerCase().replace(/[’`]/g, "'");
  if (/\b(false[ -]positive|not a (bug|problem|real issue))\b/.test(t)) return "false_positive";
  if (/\b(won'?t fix|wontfix|will not fix)\b/.test(t)) return "wont_fix";
  if (/\b(duplicate of|dupe of)\b/.test(t)) return null; // a duplicate names its other finding: the room decides
  if (/\b(good catch|confirmed|real (bug|issue|problem)|true positive)\b/.test(t)) return "real";
  return null;
}
