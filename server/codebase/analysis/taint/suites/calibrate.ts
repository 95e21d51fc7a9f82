/**
 * A finding's confidence is the measured precision of its rule on these suites: every finding of a
 * taint or setting rule is a true positive (on a `vuln:` line of its weakness) or a false alarm, counted
 * per rule and per kind of origin (request data vs. command-line / stdin / file / queue data, which
 * the same rule gets right less often). `npm run bench -- static` writes the counts into
 * ../calibration.ts; report.ts turns them into confidences.
 */
import type { Finding } from "../../types.ts";
import { originClass, type Calibration, type Tally } from "../calibration-model.ts";
import { originOfMessage } from "../report.ts";
import type { SuiteCase } from "./load.ts";
import { weaknessOf } from "./score.ts";

export function calibrate(cases: SuiteCase[], findings: Finding[]): Calibration {
  const files = new Map(cases.flatMap((c) => c.files.map((f) => [f.path, f] as const)));
  const rules: Record<string, Tally> = {};
  const origins: Record<string, Tally> = {};
  const bump = (t: Record<string, Tally>, k: string, hit: boolean) => {
    const x = (t[k] ??= { tp: 0, fp: 0 });
    if (hit) x.tp++;
    else x.fp++;
  };
  for (const f of findings) {
    const file = files.get(f.file);
    const w = weaknessOf(f.ruleId);
    if (!file || !w || f.tool !== "argus") continue;
    const hit = file.vulnerable.some((v) => v.weakness === w && f.startLine <= v.line && v.line <= f.endLine);
    bump(rules, f.ruleId, hit);
    const origin = originOfMessage(f.message);
    if (origin) bump(origins, originClass(origin), hit);
  }
  const sorted = (t: Record<string, Tally>) =>
    Object.fromEntries(Object.entries(t).sort(([a], [b]) => a.localeCompare(b)));
  return { rules: sorted(rules), origins: sorted(origins) };
}
