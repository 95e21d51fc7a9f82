/**
 * The questions a web run reads: the pipeline's own sample, an uploaded JSON-lines file (every line
 * an object; the first bad line is named), or one chat question, written as a one-row data set with
 * the field names the pipeline's key_map reads.
 */
import { invalid } from "../../errors.ts";

export const MAX_UPLOAD_ROWS = 10_000;

/** Checks an uploaded .jsonl text; returns the row count. */
export function checkJsonLines(name: string, text: string, questionField: string): number {
  const lines = text.split(/\r?\n/);
  let rows = 0;
  let withQuestion = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw invalid(`Line ${i + 1} of ${name} is not JSON: each line of a .jsonl file is one JSON object.`);
    }
    if (!row || typeof row !== "object" || Array.isArray(row))
      throw invalid(`Line ${i + 1} of ${name} is not a JSON object (it should look like {"${questionField}": "…"}).`);
    rows++;
    if (Object.hasOwn(row, questionField)) withQuestion++;
    if (rows > MAX_UPLOAD_ROWS) throw invalid(`${name} has more than ${MAX_UPLOAD_ROWS.toLocaleString("en")} rows.`);
  }
  if (rows === 0) throw invalid(`${name} has no rows: each line should be a JSON object.`);
  if (withQuestion === 0)
    throw invalid(
      `No row of ${name} has a "${questionField}" field, which the pipeline reads its questions from (key_map).`,
    );
  return rows;
}

/** One chat question as a data set row. */
export function chatRow(question: string, keyMap: Record<string, string>): string {
  const row: Record<string, unknown> = {};
  for (const [variable, field] of Object.entries(keyMap)) row[field] = variable === "q_ls" ? question : [];
  return `${JSON.stringify(row)}\n`;
}
