/**
 * The one way a built-in server turns a value into a file path — whatever way the value arrived (a
 * parameter under any name, `$name` indirection, a step's `input:` remapping, a value an earlier step
 * computed). Tools never resolve a path against `ctx.cwd` themselves (servers.test.ts checks it).
 *
 * - Web-app runs (`fileAccess` unset, the default): confined to the run's folder. `..`, absolute
 *   paths and symlinks that lead out are refused — by real path, so a link inside the folder cannot
 *   reach the rest of the disk, for reads and for writes (a write's nearest existing folder must be
 *   inside too, and nothing is created before the check). The refusal names the tool and the
 *   parameter, and shows the value as given, never anything read from the file.
 * - Command-line runs (`fileAccess: "operator"`): UltraRAG's behaviour, relative to the run's
 *   directory, anywhere the operator's account may go.
 */
import { existsSync, lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import type { CallContext } from "./contract.ts";
import { describe, ToolError } from "./define.ts";

export interface RunFiles {
  /** The real path of an existing file or folder to read. */
  read(value: unknown, param: string, tool: string): string;
  /** A path to write (created or replaced by the caller; its folders may not exist yet). */
  write(value: unknown, param: string, tool: string): string;
  /** A path that may or may not exist yet (an index folder, a corpus a later step writes): as `write`. */
  locate(value: unknown, param: string, tool: string): string;
  /** The run's directory relative paths resolve against (for messages: `path.relative(root, p)`). */
  readonly root: string;
}

const shown = (v: string) => JSON.stringify(v.length > 120 ? `${v.slice(0, 117)}...` : v);

function asPath(value: unknown, param: string, tool: string): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new ToolError(`${tool}: ${param} must be a file path, got ${describe(value)}`);
  if (value.includes("\0")) throw new ToolError(`${tool}: ${param} is not a valid path`);
  return value;
}

const inside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

/** The real path of `p`'s nearest existing ancestor (p itself when it exists), joined with the rest. */
function realish(p: string): string {
  const rest: string[] = [];
  let cur = p;
  for (;;) {
    try {
      return path.join(realpathSync(cur), ...rest.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

export function runFiles(ctx: Pick<CallContext, "cwd" | "fileAccess">): RunFiles {
  const root = path.resolve(ctx.cwd);
  const operator = ctx.fileAccess === "operator";

  const outside = (tool: string, param: string, value: string) =>
    new ToolError(
      `${tool}: ${param} ${shown(value)} is outside the run's folder; pipelines run from the web app read and write only files inside it (use a relative path such as data/questions.jsonl)`,
    );

  function confine(value: string, param: string, tool: string): string {
    const lexical = path.resolve(root, value);
    const rootReal = realish(root);
    if (!inside(root, lexical) && !inside(rootReal, lexical)) throw outside(tool, param, value);
    const real = realish(lexical);
    if (!inside(rootReal, real)) throw outside(tool, param, value);
    return real;
  }

  function write(value: unknown, param: string, tool: string): string {
    const p = asPath(value, param, tool);
    if (operator) return path.resolve(root, p);
    const file = confine(p, param, tool);
    // A dangling symlink at the target would be followed by the write: refuse it.
    try {
      if (lstatSync(file).isSymbolicLink()) throw outside(tool, param, p);
    } catch (err) {
      if (err instanceof ToolError) throw err;
    }
    return file;
  }

  return {
    root,
    write,
    locate: write,
    read(value, param, tool) {
      const p = asPath(value, param, tool);
      const file = operator ? path.resolve(root, p) : confine(p, param, tool);
      if (!existsSync(file))
        throw new ToolError(`${tool}: ${param} ${shown(p)} does not exist (paths resolve against the run's folder)`);
      return operator ? file : realpathSync(file);
    },
  };
}
