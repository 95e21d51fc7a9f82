/** Small text helpers shared by the review tools: results, caps with notes, numbered lines. */
import type { z } from "zod";
import { DomainError } from "../../errors.ts";
import { SandboxError } from "../sandbox.ts";
import type { ReviewTool, ToolResult } from "./types.ts";

/**
 * Keeps the schema's type for run's arguments (the array of tools is ReviewTool[]) and applies the one
 * error policy of every tool: a Sandbox refusal or a DomainError thrown by `run` becomes an error result
 * with its message, which the model can act on; anything else is rethrown (runToolCall reports it).
 */
export function defineTool<S extends z.ZodType>(tool: ReviewTool<S>): ReviewTool {
  const run: ReviewTool<S>["run"] = async (args, signal) => {
    try {
      return await tool.run(args, signal);
    } catch (err) {
      return expectedError(err);
    }
  };
  return { ...tool, run } as unknown as ReviewTool;
}

export const ok = (text: string): ToolResult => ({ text });
export const fail = (text: string): ToolResult => ({ text, isError: true });

/** A refusal or a domain error becomes an error result with its message; anything else is rethrown. */
export function expectedError(err: unknown): ToolResult {
  if (err instanceof SandboxError || err instanceof DomainError) return fail(err.message);
  throw err;
}

export const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** Cuts one line to max characters, saying how much was left out. */
export function cutLine(line: string, max: number): string {
  return line.length <= max
    ? line
    : `${line.slice(0, max)}… [${(line.length - max).toLocaleString("en-US")} more characters on this line]`;
}

/**
 * Cuts text at the last line break before max characters and appends the note (the note says how to
 * get the rest). Text within the cap is returned unchanged.
 */
export function clip(text: string, max: number, note: (shownChars: number) => string): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf("\n", max);
  const head = text.slice(0, cut > max / 2 ? cut : max);
  return `${head}\n${note(head.length)}`;
}

/** "   12 | text": the number right-aligned to the widest number of the block. */
export function numberLines(
  lines: readonly string[],
  firstLine: number,
  width = String(firstLine + lines.length - 1).length,
): string[] {
  return lines.map((l, i) => `${String(firstLine + i).padStart(width)} | ${l}`);
}

export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** Splits file text into lines the way editors number them (a final newline ends the last line). */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
