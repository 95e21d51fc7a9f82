/**
 * UltraRAG's `output=` grammar (spec §3.2), so a built-in server is declared the way UltraRAG's
 * Python servers are — function parameters plus an `"ins->outs"` string — and its server.yaml entry
 * (input map, output list) is derived by the same rules, including auto-`$` against the server's
 * parameter.yaml. Deriving instead of hand-writing keeps `build` output identical to UltraRAG's when a
 * user edits `servers/<name>/parameter.yaml` (a key added there turns the same-named input into `$key`).
 */
import type { ToolSignature } from "../dsl/schema.ts";

export class IoSpecError extends Error {}

const names = (s: string) =>
  s
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");

/**
 * `params`: the function's parameter names in order. `spec`: the `output=` string, or undefined when
 * the tool was registered without one. `parameterKeys`: top-level keys of the server's parameter.yaml.
 */
export function signatureFromSpec(
  params: readonly string[],
  spec: string | undefined,
  parameterKeys: ReadonlySet<string>,
): ToolSignature {
  const dollar = (n: string) => (!n.startsWith("$") && parameterKeys.has(n) ? `$${n}` : n);
  if (spec === undefined) return { input: Object.fromEntries(params.map((p) => [p, dollar(p)])), output: [] };
  const parts = spec.split("->");
  if (parts.length > 2) throw new IoSpecError(`output spec "${spec}" has more than one "->"`);
  const ins = parts.length === 2 ? names(parts[0]!) : [...params];
  const outText = (parts.length === 2 ? parts[1]! : parts[0]!).trim();
  const outs = outText === "None" || outText === "none" ? [] : names(outText);
  // zip by position: extra parameters keep their defaults, extra spec names are dropped.
  const input: Record<string, string> = {};
  for (let i = 0; i < Math.min(params.length, ins.length); i++) input[params[i]!] = dollar(ins[i]!);
  return { input, output: outs.map(dollar) };
}
