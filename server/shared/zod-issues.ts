/**
 * One way to turn a zod error into text a person (or a model) can act on: one "path: message" line
 * per problem, each naming its field.
 */
import type { z } from "zod";

export interface IssueFormat {
  /** Between problems (default a newline). */
  separator?: string;
  /** Before each problem, e.g. "- " or an indent. */
  prefix?: string;
  /** The name of an issue without a path (default: the message alone). */
  root?: string;
  /** At most this many problems (default all). */
  limit?: number;
}

export function formatZodIssues(error: Pick<z.ZodError, "issues">, format: IssueFormat = {}): string {
  const { separator = "\n", prefix = "", root, limit } = format;
  return error.issues
    .slice(0, limit)
    .map((i) => {
      const where = i.path.length ? i.path.map(String).join(".") : root;
      return `${prefix}${where === undefined ? "" : `${where}: `}${i.message}`;
    })
    .join(separator);
}
