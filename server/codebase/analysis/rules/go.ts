/** Argus sink rules for Go. */
import { report, type SinkRule } from "./engine.ts";
import { flowRule } from "./flow-rule.ts";
import { secretUseRule } from "./secret-use.ts";
import { sqlInjectionRule } from "./sql.ts";
import { INPUT_REACHES_SINK, INPUT_REDIRECTS, reportCommand } from "./verdicts.ts";

const SHELLS = /^"(?:\/bin\/|\/usr\/bin\/)?(?:sh|bash|zsh|dash|ksh|cmd|cmd\.exe|powershell|pwsh)"$/;

export const GO_RULES: SinkRule[] = [
  {
    id: "injection/command",
    anchor: /\bexec\s*\.\s*(Command|CommandContext)\s*\(/dg,
    check(hit) {
      const call = hit.call;
      if (!call) return null;
      const args = call.name === "CommandContext" ? call.args.slice(1) : call.args;
      const [program, flag, script] = args;
      if (!program) return null;
      const shell = SHELLS.test(program.text) && /^"\/?-?c"$|^"\/c"$/.test(flag?.text ?? "");
      return reportCommand(hit, call, {
        shellScript: shell && script ? script : null,
        program,
        taintedConfidence: 0.85,
        noun: "script",
      });
    },
  },
  sqlInjectionRule({
    anchor:
      /\.\s*(Query|QueryRow|QueryContext|QueryRowContext|Exec|ExecContext|Prepare|PrepareContext|Raw|Select|Get)\s*\(/dg,
    advice: " (Sprintf or +); use placeholders",
    dynamicConfidence: 0.65,
    // *Context variants and sqlx's Select/Get take (ctx or dest) first.
    sqlArgument: (call) =>
      /Context$/.test(call.name) || /^(?:Select|Get)$/.test(call.name) ? call.args[1] : call.args[0],
  }),
  flowRule({
    id: "injection/template",
    anchor: /\btemplate\s*\.\s*(HTML|JS|URL|HTMLAttr|CSS)\s*\(/dg,
    argument: (call) => call.args[0],
    table: INPUT_REACHES_SINK,
    message: (call, from) => `${call.callee}() marks ${from} as safe, bypassing html/template escaping`,
  }),
  flowRule({
    id: "path-traversal",
    anchor:
      /\b(?:os\s*\.\s*(Open|OpenFile|ReadFile|WriteFile|Create|Remove|RemoveAll|ReadDir)|ioutil\s*\.\s*(ReadFile|WriteFile|ReadDir)|http\s*\.\s*(ServeFile))\s*\(/dg,
    argument: (call) => (call.name === "ServeFile" ? call.args[2] : call.args[0]),
    table: INPUT_REACHES_SINK,
    message: (call, from) => `${call.callee}() opens a path from ${from} (path traversal)`,
  }),
  {
    id: "tls/verification-disabled",
    anchor: /\b(InsecureSkipVerify)\s*:\s*true\b/dg,
    check: (hit) =>
      report(
        hit,
        "tls/verification-disabled",
        ["high", 0.9],
        "InsecureSkipVerify: true disables TLS certificate verification",
        hit.node.parent ?? hit.node,
      ),
  },
  secretUseRule({
    id: "crypto/weak-hash",
    anchor: /\b(md5|sha1)\s*\.\s*(New|Sum)\s*\(/dg,
    verdict: ["high", 0.8],
    message: (_hit, call) => `${call.callee}() is too weak/fast for passwords or secrets; use bcrypt/scrypt/argon2`,
  }),
  {
    id: "crypto/weak-cipher",
    anchor: /\b(des|rc4)\s*\.\s*(NewCipher|NewTripleDESCipher)\s*\(/dg,
    check: (hit) =>
      report(
        hit,
        "crypto/weak-cipher",
        ["high", 0.85],
        `${hit.match[1]}.${hit.match[2]}() is a broken cipher; use AES-GCM`,
      ),
  },
  secretUseRule({
    id: "crypto/insecure-random",
    anchor: /\brand\s*\.\s*(Int|Intn|Int31|Int31n|Int63|Int63n|Uint32|Uint64|Read|Perm)\s*\(/dg,
    when: (ctx) => /"math\/rand(?:\/v2)?"/.test(ctx.source),
    verdict: ["medium", 0.7],
    message: () => "math/rand is predictable: use crypto/rand for tokens and secrets",
  }),
  flowRule({
    id: "redirect/open",
    anchor: /\b(Redirect)\s*\(/dg,
    // net/http: Redirect(w, r, url, code); gin/echo: c.Redirect(code, url).
    argument: (call) => (call.callee === "http.Redirect" ? call.args[2] : call.args[1]),
    table: INPUT_REDIRECTS,
    message: (call, from) => `${call.callee}() redirects to a URL from ${from} (open redirect)`,
  }),
];
