/** Argus sink rules for Rust: the few patterns that are common and clear-cut. */
import { inSecretContext, report, type SinkRule } from "./engine.ts";
import { SQL_WORDS } from "./sql.ts";

export const RUST_RULES: SinkRule[] = [
  {
    id: "tls/verification-disabled",
    anchor:
      /\b(danger_accept_invalid_certs|danger_accept_invalid_hostnames|set_verify)\s*\(\s*(?:true|SslVerifyMode::NONE)\s*\)/dg,
    check: (hit) =>
      report(
        hit,
        "tls/verification-disabled",
        ["high", 0.9],
        `${hit.match[1]}() disables TLS certificate verification`,
        hit.node,
      ),
  },
  {
    id: "injection/command",
    // Command::new("sh").arg("-c").arg(format!(…)) — a shell script assembled at run time.
    anchor:
      /\bCommand\s*::\s*(new)\s*\(\s*"(?:\/bin\/)?(?:sh|bash|cmd)"\s*\)(?:\s*\.\s*args?\s*\([^;]*?\))*?\s*\.\s*args?\s*\(\s*(?:&\s*)?(?:\[\s*"-c"\s*,\s*)?(?:&\s*)?format!/dg,
    check: (hit) =>
      report(
        hit,
        "injection/command",
        ["medium", 0.5],
        "a shell command is assembled with format!(); pass arguments separately",
        hit.node.parent ?? hit.node,
      ),
  },
  {
    id: "injection/sql",
    anchor: /\b(query|query_as|query_scalar|execute|raw_sql|sql_query)\s*(?:::<[^>]*>)?\s*\(\s*&?\s*format!\s*\(/dg,
    check(hit) {
      if (!SQL_WORDS.test(hit.ctx.source.slice(hit.match.index, hit.match.index + 400))) return null;
      return report(
        hit,
        "injection/sql",
        ["high", 0.65],
        `SQL passed to ${hit.match[1]}() is built with format!(); bind parameters instead`,
      );
    },
  },
  {
    id: "crypto/weak-hash",
    anchor: /\b(md5::compute|Md5::new|Md5::digest|Sha1::new|Sha1::digest)\b/dg,
    check(hit) {
      if (!inSecretContext(hit.node)) return null;
      return report(
        hit,
        "crypto/weak-hash",
        ["high", 0.8],
        `${hit.match[1]} is too weak/fast for passwords or secrets; use argon2/bcrypt/scrypt`,
      );
    },
  },
];
