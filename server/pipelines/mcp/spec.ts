/**
 * The parsed form createMcpServer takes, and the parser for how a pipeline names an external server.
 *
 * The registry (../registry.ts) resolves `servers:` values; next to UltraRAG's directories it accepts
 *   `https://host/mcp` / `http://127.0.0.1:8080/mcp`  → Streamable HTTP
 *   `stdio:python -m my_server --flag`                 → a local process speaking MCP on stdin/stdout
 * (and a directory whose parameter.yaml `path:` is one of those or a `.py` script, as UltraRAG does).
 * parseServerRef also reads a mapping form for what a string cannot say — environment, working
 * directory, HTTP headers: `{command: python, args: [-m, x], env: {K: v}, cwd: tools}` or
 * `{url: …, headers: {…}}` — for when the dsl accepts a mapping as a `servers:` value.
 * A stdio command line is split like a shell would split words (quotes, backslashes) but never run
 * through a shell: `$VAR`, globs, pipes and `;` are literal characters of an argument.
 */
import { z } from "zod";
import { formatZodIssues } from "../../shared/zod-issues.ts";

export const STDIO_PREFIX = "stdio:";

const envSchema = z.record(
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "environment variable names are letters, digits and _"),
  z.string(),
);

export const stdioSpecSchema = z.strictObject({
  command: z.string().min(1, "`command` must name a program"),
  args: z.array(z.string()).default([]),
  /** Added to the child's environment (which is otherwise only PATH, HOME, LANG). */
  env: envSchema.default({}),
  /** Pass the whole parent environment (secrets included). Off unless asked. */
  inheritEnv: z.boolean().default(false),
  /** Working directory of the child; relative to the pipeline's working directory. */
  cwd: z.string().min(1).optional(),
});

export const httpSpecSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: "`url` must be an http:// or https:// address" }),
  /** Sent with every request, e.g. an Authorization header. */
  headers: z.record(z.string(), z.string()).default({}),
});

export const mcpServerSpecSchema = z.union([stdioSpecSchema, httpSpecSchema]);

export type StdioSpec = z.infer<typeof stdioSpecSchema>;
export type HttpSpec = z.infer<typeof httpSpecSchema>;
export type McpServerSpec = StdioSpec | HttpSpec;
/** What callers write: defaults (args, env, headers) may be left out. */
export type McpServerSpecInput = z.input<typeof mcpServerSpecSchema>;

export const isHttpSpec = (s: McpServerSpec): s is HttpSpec => "url" in s;

export class McpSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpSpecError";
  }
}

/** True when a `servers:` value names an external MCP server rather than a server directory. */
export function isMcpServerRef(value: unknown): boolean {
  if (typeof value === "string") return value.startsWith(STDIO_PREFIX) || /^https?:\/\//i.test(value);
  return typeof value === "object" && value !== null && !Array.isArray(value) && ("command" in value || "url" in value);
}

/**
 * A `servers:` value → spec. Returns undefined for a plain server path (`servers/retriever`), which the
 * registry resolves; throws McpSpecError (what is wrong, what to write) for a malformed MCP reference.
 */
export function parseServerRef(value: unknown): McpServerSpec | undefined {
  if (!isMcpServerRef(value)) return undefined;
  if (typeof value === "string") {
    if (value.startsWith(STDIO_PREFIX)) {
      const words = splitCommandLine(value.slice(STDIO_PREFIX.length));
      if (words.length === 0)
        throw new McpSpecError(
          `\`${value}\` has no command after \`${STDIO_PREFIX}\`; write e.g. \`${STDIO_PREFIX}python -m my_server\``,
        );
      return stdioSpecSchema.parse({ command: words[0], args: words.slice(1) });
    }
    return checked(httpSpecSchema, { url: value });
  }
  // Pick the form by its key, so zod reports the actual field that is wrong rather than "no union member".
  return "url" in (value as object) ? checked(httpSpecSchema, value) : checked(stdioSpecSchema, value);
}

function checked<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = formatZodIssues(r.error, { separator: "; " });
  throw new McpSpecError(
    `Invalid MCP server entry: ${issues}. Write \`{command, args?, env?, cwd?}\`, \`{url, headers?}\`, \`${STDIO_PREFIX}<command line>\` or an http(s) URL`,
  );
}

/**
 * Splits a command line into words the way a POSIX shell tokenizes, without any expansion:
 * whitespace separates, '…' is literal, "…" allows \" and \\, a backslash outside quotes escapes the
 * next character.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new McpSpecError(`Unterminated ' quote in command line \`${line}\``);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && (line[j + 1] === '"' || line[j + 1] === "\\")) j++;
        word += line[j];
      }
      if (j >= line.length) throw new McpSpecError(`Unterminated " quote in command line \`${line}\``);
      inWord = true;
      i = j;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** One line naming the server in messages: `python -m x` or `https://host/mcp` (never headers or env). */
export function describeSpec(spec: McpServerSpec): string {
  if (isHttpSpec(spec)) return spec.url;
  const quote = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`);
  return [spec.command, ...spec.args].map(quote).join(" ");
}
