/**
 * Which weakness a tool's rule reports, in Argus's terms (its rule ids: "injection/sql", "xxe", …), so
 * the findings of Argus, ESLint, ruff and bandit on the same lines for the same weakness become one
 * (merge.ts). Each mapped rule also says whether it is a *data-flow* check — one whose point is
 * "untrusted data may reach this call" (bandit B608, ESLint's detect-child-process) — as opposed to
 * a check of a setting or an API that is wrong whatever data it gets (autoescape off, verify=False,
 * a hard-coded password). Argus's taint engine decides data-flow questions by following the data.
 *
 * Rules that only note an import (bandit B403 "consider the implications of pickle") are marked
 * `importOnly`: the use of the module is what is checked, at the call (B301 for pickle.loads).
 */
import { WEAKNESSES } from "./taint/report.ts";
import type { Finding } from "./types.ts";

export interface RuleWeakness {
  /** Argus's rule id for the weakness ("secrets" for every hard-coded secret); null: not mapped. */
  weakness: string | null;
  /** The rule asks whether untrusted data reaches a call (the taint engine answers that). */
  flow: boolean;
  /** The rule notes an import, not a use. */
  importOnly?: boolean;
}

const NONE: RuleWeakness = { weakness: null, flow: false };
const flow = (weakness: string): RuleWeakness => ({ weakness, flow: true });
const setting = (weakness: string): RuleWeakness => ({ weakness, flow: false });

/** Weaknesses whose data flow Argus's taint engine follows (JavaScript / TypeScript and Python). */
export const TAINT_WEAKNESSES: ReadonlySet<string> = new Set(Object.values(WEAKNESSES).map((w) => w.ruleId));

/**
 * bandit's test ids (ruff's flake8-bandit S codes use the same numbers). From bandit's documented
 * plugins and blacklists; ids not listed (B101 assert, B104 bind all interfaces, B108 temp files,
 * B110 try/except/pass, B201 Flask debug, …) are kept as bandit reports them.
 */
const BANDIT: Record<string, RuleWeakness> = {
  B102: flow("injection/code"), // exec
  B105: setting("secrets"), // hard-coded password string
  B106: setting("secrets"), // hard-coded password argument
  B107: setting("secrets"), // hard-coded password default
  B301: flow("deserialization/unsafe"), // pickle
  B302: flow("deserialization/unsafe"), // marshal
  B303: flow("crypto/weak-hash"), // md5 / sha1 (bandit < 1.7.5)
  B304: setting("crypto/weak-cipher"),
  B305: setting("crypto/weak-cipher"),
  B307: flow("injection/code"), // eval
  B308: flow("xss/reflected"), // mark_safe
  B310: flow("ssrf"), // urllib urlopen
  B311: flow("crypto/insecure-random"), // random module
  B313: flow("xxe"),
  B314: flow("xxe"),
  B315: flow("xxe"),
  B316: flow("xxe"),
  B317: flow("xxe"),
  B318: flow("xxe"),
  B319: flow("xxe"),
  B320: flow("xxe"), // lxml
  B323: setting("tls/verification-disabled"), // ssl._create_unverified_context
  B324: flow("crypto/weak-hash"), // hashlib with md4/md5/sha1
  B501: setting("tls/verification-disabled"), // requests verify=False
  B502: setting("tls/verification-disabled"),
  B503: setting("tls/verification-disabled"),
  B504: setting("tls/verification-disabled"),
  B506: flow("deserialization/unsafe"), // yaml.load
  B601: flow("injection/command"), // paramiko exec_command
  B602: flow("injection/command"), // subprocess with shell=True
  B603: flow("injection/command"), // subprocess without a shell
  B604: flow("injection/command"), // any call with shell=True
  B605: flow("injection/command"), // os.system and other shells
  B606: flow("injection/command"), // os.exec* / spawn* without a shell
  B608: flow("injection/sql"), // SQL built from strings
  B609: flow("injection/command"), // wildcard in a shell command
  B610: flow("injection/sql"), // Django extra()
  B611: flow("injection/sql"), // Django RawSQL
  B701: setting("xss/autoescape-off"), // jinja2 autoescape off
  B702: setting("xss/autoescape-off"), // Mako templates (no escaping)
  B703: flow("xss/reflected"), // Django mark_safe
  B704: flow("xss/reflected"), // markupsafe.Markup
};

/** Imports whose use bandit checks at the call (B401 telnetlib → B312, B403 pickle → B301, B404
 * subprocess → B602–B607, B405–B410 XML parsers → B313–B320). */
const BANDIT_IMPORT_ONLY = new Set(["B401", "B402", "B403", "B404", "B405", "B406", "B407", "B408", "B409", "B410"]);

/** eslint-plugin-security and ESLint's own code-evaluation rules (a project's config may enable them). */
const ESLINT: Record<string, RuleWeakness> = {
  "security/detect-child-process": flow("injection/command"),
  "security/detect-eval-with-expression": flow("injection/code"),
  "security/detect-non-literal-fs-filename": flow("path-traversal"),
  "security/detect-non-literal-require": flow("injection/code"),
  "security/detect-pseudoRandomBytes": flow("crypto/insecure-random"),
  "security/detect-disable-mustache-escape": setting("xss/autoescape-off"),
  "no-eval": flow("injection/code"),
  "no-implied-eval": flow("injection/code"),
  "no-new-func": flow("injection/code"),
};

export function banditWeakness(testId: string): RuleWeakness {
  if (BANDIT_IMPORT_ONLY.has(testId)) return { weakness: null, flow: false, importOnly: true };
  return BANDIT[testId] ?? NONE;
}

export function weaknessOf(f: Pick<Finding, "tool" | "ruleId">): RuleWeakness {
  switch (f.tool) {
    case "argus":
      return { weakness: f.ruleId.startsWith("secrets/") ? "secrets" : f.ruleId, flow: false };
    case "bandit":
      return banditWeakness(f.ruleId);
    case "ruff":
      return /^S\d{3}$/.test(f.ruleId) ? banditWeakness(`B${f.ruleId.slice(1)}`) : NONE;
    case "eslint":
      return ESLINT[f.ruleId] ?? NONE;
    default:
      return NONE;
  }
}
