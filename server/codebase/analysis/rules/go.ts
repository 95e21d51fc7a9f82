/** Argus sink rules for Go. */
import { byFlow, FLOW_WORDS, inSecretContext, report, type SinkRule } from "./engine.ts";
import { SQL_WORDS } from "./sql.ts";

const SHELLS = /^"(?:\/bin\/|\/usr\/bin\/)?(?:sh|bash|zsh|dash|ksh|cmd|cmd\.exe|powershell|pwsh)"$/;

export const GO_RULES: SinkRule[] = [
  {
    id: "injection/command",
    anchor: /\bexec\s*\.\s*(Command|CommandContext)\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      if (!call) return null;
      const args = call.name === "CommandContext" ? call.args.slice(1) : call.args;
      const [program, flag, script] = args;
      if (!program) return null;
      if (SHELLS.test(program.text) && /^"\/?-?c"$|^"\/c"$/.test(flag?.text ?? "") && script) {
        const flow = await hit.flow.classify(script);
        const built = flow === "dynamic" && (await hit.flow.isBuiltString(script));
        const verdict = byFlow(flow, {
          source: ["critical", 0.9],
          tainted: ["high", 0.85],
          dynamic: built ? ["medium", 0.5] : null,
        });
        return report(
          hit,
          "injection/command",
          verdict,
          `${call.callee}() runs a shell script built from ${FLOW_WORDS[flow]}`,
        );
      }
      const flow = await hit.flow.classify(program);
      return report(
        hit,
        "injection/command",
        byFlow(flow, { source: ["high", 0.8], tainted: ["high", 0.7] }),
        `${call.callee}() runs a program chosen by ${FLOW_WORDS[flow]}`,
      );
    },
  },
  {
    id: "injection/sql",
    anchor:
      /\.\s*(Query|QueryRow|QueryContext|QueryRowContext|Exec|ExecContext|Prepare|PrepareContext|Raw|Select|Get)\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      if (!call) return null;
      // *Context variants and sqlx's Select/Get take (ctx or dest) first.
      const sql = /Context$/.test(call.name) || /^(?:Select|Get)$/.test(call.name) ? call.args[1] : call.args[0];
      if (!sql) return null;
      const resolved = await hit.flow.resolveIdentifier(sql);
      if (!SQL_WORDS.test(resolved.text.slice(0, 2000))) return null;
      const flow = await hit.flow.classify(sql);
      const built = await hit.flow.isBuiltString(sql);
      const verdict = byFlow(flow, {
        source: ["critical", 0.9],
        tainted: built ? ["critical", 0.85] : ["high", 0.7],
        dynamic: built ? ["high", 0.65] : null,
      });
      return report(
        hit,
        "injection/sql",
        verdict,
        `SQL passed to ${call.callee}() is built from ${FLOW_WORDS[flow]} (Sprintf or +); use placeholders`,
      );
    },
  },
  {
    id: "injection/template",
    anchor: /\btemplate\s*\.\s*(HTML|JS|URL|HTMLAttr|CSS)\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      const value = call?.args[0];
      if (!call || !value) return null;
      const flow = await hit.flow.classify(value);
      return report(
        hit,
        "injection/template",
        byFlow(flow, { source: ["high", 0.85], tainted: ["high", 0.8] }),
        `${call.callee}() marks ${FLOW_WORDS[flow]} as safe, bypassing html/template escaping`,
      );
    },
  },
  {
    id: "path-traversal",
    anchor:
      /\b(?:os\s*\.\s*(Open|OpenFile|ReadFile|WriteFile|Create|Remove|RemoveAll|ReadDir)|ioutil\s*\.\s*(ReadFile|WriteFile|ReadDir)|http\s*\.\s*(ServeFile))\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      if (!call) return null;
      const target = call.name === "ServeFile" ? call.args[2] : call.args[0];
      if (!target) return null;
      const flow = await hit.flow.classify(target);
      return report(
        hit,
        "path-traversal",
        byFlow(flow, { source: ["high", 0.85], tainted: ["high", 0.8] }),
        `${call.callee}() opens a path from ${FLOW_WORDS[flow]} (path traversal)`,
      );
    },
  },
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
  {
    id: "crypto/weak-hash",
    anchor: /\b(md5|sha1)\s*\.\s*(New|Sum)\s*\(/dg,
    check(hit) {
      if (!hit.call || !inSecretContext(hit.call.node)) return null;
      return report(
        hit,
        "crypto/weak-hash",
        ["high", 0.8],
        `${hit.call.callee}() is too weak/fast for passwords or secrets; use bcrypt/scrypt/argon2`,
      );
    },
  },
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
  {
    id: "crypto/insecure-random",
    anchor: /\brand\s*\.\s*(Int|Intn|Int31|Int31n|Int63|Int63n|Uint32|Uint64|Read|Perm)\s*\(/dg,
    when: (ctx) => /"math\/rand(?:\/v2)?"/.test(ctx.source),
    check(hit) {
      if (!hit.call || !inSecretContext(hit.call.node)) return null;
      return report(
        hit,
        "crypto/insecure-random",
        ["medium", 0.7],
        "math/rand is predictable: use crypto/rand for tokens and secrets",
      );
    },
  },
  {
    id: "redirect/open",
    anchor: /\b(Redirect)\s*\(/dg,
    async check(hit) {
      const call = hit.call;
      if (!call) return null;
      // net/http: Redirect(w, r, url, code); gin/echo: c.Redirect(code, url).
      const url = call.callee === "http.Redirect" ? call.args[2] : call.args[1];
      if (!url) return null;
      const flow = await hit.flow.classify(url);
      return report(
        hit,
        "redirect/open",
        byFlow(flow, { source: ["medium", 0.85], tainted: ["medium", 0.8] }),
        `${call.callee}() redirects to a URL from ${FLOW_WORDS[flow]} (open redirect)`,
      );
    },
  },
];
