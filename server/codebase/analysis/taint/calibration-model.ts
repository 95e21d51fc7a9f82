/**
 * From the counts measured on Argus's suites (calibration.ts, written by `npm run bench -- static`)
 * to a finding's confidence: the precision of its rule, smoothed for small counts ((tp + 1) /
 * (tp + fp + 2), so a rule seen right twice is 0.75, not 1), scaled by how much less often findings
 * from low-trust origins (command-line arguments, stdin, files, queued payloads) were right than
 * findings from request data.
 */
export interface Tally {
  tp: number;
  fp: number;
}

export interface Calibration {
  /** Per rule id ("injection/sql"). */
  rules: Record<string, Tally>;
  /** Per origin class ("request", "local", "queue"). */
  origins: Record<string, Tally>;
}

/** Request data and predictable randomness are the rules' own cases; the rest is "local" or "queue". */
export function originClass(origin: string): "request" | "local" | "queue" {
  if (origin === "queue") return "queue";
  return origin === "request" || origin === "random" ? "request" : "local";
}

const smoothed = (t: Tally | undefined) => (t ? (t.tp + 1) / (t.tp + t.fp + 2) : 0.5);
const round = (x: number) => Math.round(x * 100) / 100;

/** The confidence of a finding of `ruleId` whose data came from `origin` (undefined: a setting). */
export function confidenceFrom(table: Calibration, ruleId: string, origin?: string): number {
  const rule = smoothed(table.rules[ruleId]);
  const cls = origin ? originClass(origin) : "request";
  const scale = cls === "request" ? 1 : Math.min(1, smoothed(table.origins[cls]) / smoothed(table.origins.request));
  return round(Math.max(0.05, Math.min(0.99, rule * scale)));
}
