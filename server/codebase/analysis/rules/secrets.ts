/**
 * Hard-coded secrets, on the text of every file: known key formats (each regex anchored on the
 * format's fixed prefix, so scanning stays linear) and high-entropy literals assigned to secret-ish
 * names. Findings never contain the secret: the message names the kind and a redacted prefix.
 *
 * Placeholders are not secrets: published documentation keys (AKIAIOSFODNN7EXAMPLE and the like),
 * values containing EXAMPLE/dummy/fake/changeme/xxxx, template holes (${…}, {{…}}, <…>). A real-looking
 * key in a test file IS reported (a leaked key is valid wherever it sits), one severity lower and less
 * confident (see finding()).
 *
 * A password hash (bcrypt, argon2, scrypt, pbkdf2, crypt's $5$/$6$) is not a secret: seed data and
 * fixtures hold them on purpose. A high-entropy literal's severity says where it sits: production
 * code high, seed data and migrations low, tests / fixtures / examples / docs info.
 */
import type { Finding, Severity } from "../types.ts";
import { finding, lineOf, matchAll, type RuleContext } from "./context.ts";

interface KeyFormat {
  id: string;
  what: string;
  re: RegExp;
  severity: Severity;
  confidence: number;
  /** Capture group holding the secret (default: whole match). */
  group?: number;
}

const FORMATS: KeyFormat[] = [
  {
    id: "secrets/aws-access-key",
    what: "AWS access key id",
    re: /\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b/g,
    severity: "critical",
    confidence: 0.9,
    group: 1,
  },
  {
    id: "secrets/aws-secret-key",
    what: "AWS secret access key",
    re: /aws_?secret_?(?:access_?)?key["']?\s*(?:=|:|:=|=>)\s*["']([A-Za-z0-9/+=]{40})["']/gi,
    severity: "critical",
    confidence: 0.85,
    group: 1,
  },
  {
    id: "secrets/github-token",
    what: "GitHub token",
    re: /\b(gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g,
    severity: "critical",
    confidence: 0.95,
    group: 1,
  },
  {
    id: "secrets/slack-token",
    what: "Slack token",
    re: /\b(xox[abposr]-[A-Za-z0-9-]{10,250})\b/g,
    severity: "high",
    confidence: 0.9,
    group: 1,
  },
  {
    id: "secrets/slack-webhook",
    what: "Slack webhook URL",
    re: /(https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]{6,}\/B[A-Z0-9]{6,}\/[A-Za-z0-9]{16,})/g,
    severity: "high",
    confidence: 0.9,
    group: 1,
  },
  {
    id: "secrets/stripe-key",
    what: "Stripe live key",
    re: /\b((?:sk|rk)_live_[0-9A-Za-z]{20,247})\b/g,
    severity: "critical",
    confidence: 0.95,
    group: 1,
  },
  {
    id: "secrets/stripe-key",
    what: "Stripe test key",
    re: /\b((?:sk|rk)_test_[0-9A-Za-z]{20,247})\b/g,
    severity: "low",
    confidence: 0.6,
    group: 1,
  },
  {
    id: "secrets/private-key",
    what: "private key block",
    re: /(-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----)/g,
    severity: "critical",
    confidence: 0.95,
    group: 1,
  },
  {
    id: "secrets/jwt",
    what: "JSON Web Token",
    re: /\b(eyJ[A-Za-z0-9_-]{10,2000}\.eyJ[A-Za-z0-9_-]{10,4000}\.[A-Za-z0-9_-]{10,2000})/g,
    severity: "high",
    confidence: 0.7,
    group: 1,
  },
  {
    id: "secrets/google-api-key",
    what: "Google API key",
    re: /\b(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])/g,
    severity: "high",
    confidence: 0.85,
    group: 1,
  },
  {
    id: "secrets/openai-key",
    what: "OpenAI API key",
    re: /\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,200}T3BlbkFJ[A-Za-z0-9_-]{20,200})/g,
    severity: "critical",
    confidence: 0.95,
    group: 1,
  },
  {
    id: "secrets/anthropic-key",
    what: "Anthropic API key",
    re: /\b(sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,120})/g,
    severity: "critical",
    confidence: 0.95,
    group: 1,
  },
  {
    id: "secrets/sendgrid-key",
    what: "SendGrid API key",
    re: /\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})\b/g,
    severity: "high",
    confidence: 0.9,
    group: 1,
  },
  {
    id: "secrets/npm-token",
    what: "npm access token",
    re: /\b(npm_[A-Za-z0-9]{36})\b/g,
    severity: "high",
    confidence: 0.9,
    group: 1,
  },
  // Anchored on "://" (a literal first atom lets the regex engine skip ahead; a scheme-first pattern
  // was the costliest regex of the pass).
  {
    id: "secrets/connection-string",
    what: "password in a connection URL",
    re: /:\/\/[^:@/\s"'`]{1,64}:([^@/\s"'`]{3,128})@[\w.-]+/g,
    severity: "high",
    confidence: 0.75,
    group: 1,
  },
];

/** Documentation placeholders and template holes: never reported. */
const PLACEHOLDER =
  /example|sample|dummy|fake|placeholder|changeme|change_me|replace[_-]?me|insert[_-]?here|redacted|your[_-]?|xxxx|\*\*\*|\$\{|\{\{|<[^>]*>|^\$[A-Z_]+$|^%[sd(]|^(.)\1+$|^(?:password|passwd|secret|token|pass|pwd|user|username|root|admin|test|null|none|undefined|string)$|not[_-]?a[_-]?(?:real[_-]?)?secret|do[_-]?not[_-]?use|^(?:sk|pk|rk)_test_|^test[_-]|[_-]test$|^dev[_-]|[_-]dev$|^local[_-]|lorem|ipsum|s3cr3t|hunter2|letmein|password1?2?3|secret1?2?3/i;

/** Password hashes (a hash is not the secret; seed data and fixtures keep them on purpose). */
const PASSWORD_HASH =
  /^(?:\$2[abxy]?\$\d\d\$[./A-Za-z0-9]{53}|\$argon2(?:id|i|d)\$\S+|\$scrypt\$\S+|\$7\$\S+|\$[156]\$(?:rounds=\d+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,86}|(?:pbkdf2[_-]sha(?:1|256|512)|\$pbkdf2(?:-sha(?:1|256|512))?)\$\S+|(?:bcrypt|argon2|scrypt)\$\S+)$/;

/** Where a file sits decides how bad a literal secret in it is. */
export type SecretLocation = "production" | "seed" | "test";
const EXAMPLE_PATH =
  /(^|\/)(?:examples?|samples?|docs?|demo)\/|\.(?:example|sample|dist|template)(?:\.\w+)?$|(^|\/)README[^/]*$|\.md$/i;
const SEED_PATH =
  /(^|\/)(?:seeds?|seeders?|migrations?|db\/seed[^/]*|prisma\/seed[^/]*)(\/|\.\w+$)|(^|\/)seed[^/]*\.\w+$/i;

export function secretLocation(ctx: Pick<RuleContext, "path" | "isTest">): SecretLocation {
  if (ctx.isTest || EXAMPLE_PATH.test(ctx.path)) return "test";
  if (SEED_PATH.test(ctx.path)) return "seed";
  return "production";
}

const SECRET_NAME =
  /secret|passw(?:or)?d|passwd|pwd|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?key|credential|signing[_-]?key|encryption[_-]?key|master[_-]?key/gi;
const SECRET_NAME_TEST = new RegExp(SECRET_NAME.source, "i");
/** Names that contain a secret word but hold something else (a header name, a URL, a length). */
const NOT_A_SECRET_NAME =
  /(?:url|uri|path|file|name|id|type|header|field|length|len|size|env|var|prefix|endpoint|format|pattern|regex|label|placeholder|key_?name|expir\w*|ttl|count|min|max|policy|mode|kind|storage|cookie)$/i;
/** `name = "value"` / `name: 'value'` / `name := "value"` / `"name": "value"`, value without spaces. */
const ASSIGNMENT = /([A-Za-z_$][\w$.-]{0,80})["']?\s*(?::=|=>|=|:)\s*[rbfuRBFU]{0,2}(["'`])([^"'`\s\\]{8,200})\2/g;

export function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    h -= p * Math.log2(p);
  }
  return h;
}

function charClasses(value: string): number {
  return [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
}

const redact = (secret: string) => `${secret.slice(0, 4)}… (${secret.length} chars)`;

export function runSecretRules(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  const linesWithKnown = new Set<number>();
  for (const format of FORMATS) {
    for (const m of matchAll(ctx.source, format.re)) {
      const secret = m[format.group ?? 0] ?? m[0];
      if (PLACEHOLDER.test(secret) || PASSWORD_HASH.test(secret)) continue;
      const line = lineOf(ctx, m.index);
      const f = finding(
        ctx,
        format.id,
        format.severity,
        format.confidence,
        line,
        line + (m[0].match(/\n/g)?.length ?? 0),
        `hard-coded ${format.what}: ${redact(secret)}`,
      );
      if (f) {
        out.push(f);
        linesWithKnown.add(line);
      }
    }
  }
  out.push(...highEntropyAssignments(ctx, linesWithKnown));
  return out;
}

/** Secret-ish names first (cheap, rare), then the assignment on that line, then the value's entropy. */
function highEntropyAssignments(ctx: RuleContext, skipLines: Set<number>): Finding[] {
  const out: Finding[] = [];
  const seenLines = new Set<number>();
  for (const hit of matchAll(ctx.source, SECRET_NAME)) {
    const lineStart = ctx.source.lastIndexOf("\n", hit.index) + 1;
    let lineEnd = ctx.source.indexOf("\n", hit.index);
    if (lineEnd < 0) lineEnd = ctx.source.length;
    if (lineEnd - lineStart > 1000) continue; // minified or data: not an assignment a person wrote
    const line = lineOf(ctx, hit.index);
    if (seenLines.has(line) || skipLines.has(line)) continue;
    seenLines.add(line);
    for (const m of matchAll(ctx.source.slice(lineStart, lineEnd), ASSIGNMENT)) {
      const name = m[1]!;
      const value = m[3]!;
      if (!SECRET_NAME_TEST.test(name) || NOT_A_SECRET_NAME.test(name) || PLACEHOLDER.test(value)) continue;
      if (PASSWORD_HASH.test(value)) continue;
      if (/^[A-Z][A-Z0-9_]+$/.test(value) || /^(?:https?|file):\/\//.test(value) || /^[\w.-]+\.[a-z]{2,4}$/.test(value))
        continue;
      const h = entropy(value);
      const strong = value.length >= 16 ? h >= 3.5 : h >= 3.0 && charClasses(value) >= 3;
      if (!strong) continue;
      const where = secretLocation(ctx);
      const confidence = Math.min(0.85, 0.55 + (h - 3) * 0.15) * (where === "production" ? 1 : 0.7);
      const f = finding(
        { ...ctx, isTest: false },
        "secrets/high-entropy-literal",
        where === "production" ? "high" : where === "seed" ? "low" : "info",
        confidence,
        line,
        line,
        `high-entropy literal assigned to "${name.slice(0, 60)}": ${redact(value)}${where === "production" ? "" : where === "seed" ? " (in seed data)" : " (in a test, fixture or example file)"}`,
      );
      if (f) out.push(f);
      break;
    }
  }
  return out;
}
