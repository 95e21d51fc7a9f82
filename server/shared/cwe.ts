/**
 * The CWE (Common Weakness Enumeration) ids of Argus's static rules, so findings map to the standard
 * categories: shown on a finding in the review and exported as SARIF `taxa` / `properties.cwe`.
 * Rule ids are Argus's (the taint engine's and the rules pass's, docs/static-analysis.md); every
 * hard-coded secret rule ("secrets/…") is CWE-798. Other tools' rule ids have none here.
 */

const BY_RULE: Record<string, readonly number[]> = {
  "injection/sql": [89],
  "injection/nosql": [943],
  "injection/command": [78],
  "injection/code": [94, 95],
  "injection/template": [1336],
  "injection/xpath": [643],
  "injection/ldap": [90],
  "xss/reflected": [79],
  "xss/autoescape-off": [79, 116],
  "path-traversal": [22],
  "redirect/open": [601],
  ssrf: [918],
  xxe: [611],
  "deserialization/unsafe": [502],
  "trust-boundary/session": [501],
  "cookie/insecure": [614, 1004],
  "crypto/weak-hash": [328, 916],
  "crypto/insecure-random": [330, 338],
  "crypto/weak-cipher": [327],
  "tls/verification-disabled": [295],
};

/** "CWE-89" … for a rule id (empty when the rule has no CWE mapping). */
export function cweOf(ruleId: string | null | undefined): string[] {
  if (!ruleId) return [];
  const ids = BY_RULE[ruleId] ?? (ruleId.startsWith("secrets/") ? [798] : []);
  return ids.map((n) => `CWE-${n}`);
}
