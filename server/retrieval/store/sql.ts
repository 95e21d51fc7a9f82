/**
 * User values inside LanceDB `where` clauses (DataFusion SQL). Everything a user types goes through
 * `sqlString`, never string concatenation: a quote in a file name or a glob must not end the literal.
 */
import { invalid } from "../../errors.ts";

/** A SQL string literal. Standard SQL: a quote is doubled; backslashes are literal in DataFusion. */
export function sqlString(value: string): string {
  // NUL cannot appear in a file path or a language id and is a classic truncation trick: refuse it.
  if (value.includes("\0")) throw invalid("Filter values cannot contain a NUL character.");
  return `'${value.replaceAll("'", "''")}'`;
}

/** `column IN ('a', 'b')`, for a non-empty list. */
export function sqlIn(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map(sqlString).join(", ")})`;
}

const MAX_GLOB_CHARS = 500;

/**
 * A path glob → an anchored regular expression over repository-relative paths with `/` separators.
 * `*` and `?` stay within one path segment, `**` crosses segments (`src/**` + `/x.ts` also matches
 * `src/x.ts`), `{a,b}` alternates, `[abc]` / `[!abc]` are character classes. A glob without `/`
 * matches a file name at any depth (`*.md`), as in .gitignore. Every other character is literal.
 */
export function globToRegex(glob: string): string {
  if (!glob.trim()) throw invalid("The path filter is empty.");
  if (glob.length > MAX_GLOB_CHARS)
    throw invalid(`The path filter is ${glob.length} characters long; the limit is ${MAX_GLOB_CHARS}.`);
  let pattern = glob.replace(/^\.\//, "");
  const anyDepth = !pattern.includes("/");
  let out = "";
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        // `**/` → zero or more whole directories; a bare `**` → anything.
        if (pattern[i + 2] === "/") {
          out += "(?:.*/)?";
          i += 2;
        } else {
          out += ".*";
          i += 1;
        }
      } else out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else if (c === "{") {
      braces++;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (c === "," && braces > 0) out += "|";
    else if (c === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close === -1) {
        out += "\\[";
        continue;
      }
      let body = pattern.slice(i + 1, close);
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      // Inside a class only `\`, `]` and `^` are special; `-` keeps its range meaning.
      out += `[${negate ? "^" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`;
      i = close;
    } else out += c.replace(/[.+^$()|\\\]{}]/g, "\\$&");
  }
  if (braces > 0) throw invalid(`The path filter "${glob}" has an unclosed "{".`);
  pattern = `^${anyDepth ? "(?:.*/)?" : ""}${out}$`;
  return pattern;
}
