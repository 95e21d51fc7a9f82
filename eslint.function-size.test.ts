/**
 * The function-size rule (eslint.function-size.mjs) fires on a function over 150 lines anywhere in the
 * project's code and passes data tables and tests. `npm run lint` applies it to every file.
 */
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_FUNCTION_LINES } from "./eslint.function-size.mjs";

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: import.meta.dirname });
});

async function tooLong(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === "max-lines-per-function").map((m) => m.message);
}

/** A function of `lines` statements, with blank lines and comments between them (which do not count). */
function fn(lines: number): string {
  const body = Array.from({ length: lines - 4 }, (_, i) => `  total += ${i};\n\n  // step ${i}`).join("\n");
  return `export function f(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
}

describe("no function over 150 lines (eslint.function-size.mjs)", () => {
  it("fires on a function one line over, in server/, app/ and bench/", async () => {
    for (const file of ["server/review/x.ts", "app/_components/x.tsx", "bench/x.ts"])
      expect(await tooLong(file, fn(MAX_FUNCTION_LINES + 1))).toEqual([
        expect.stringContaining(`too many lines (${MAX_FUNCTION_LINES + 1})`),
      ]);
  });

  it("counts neither blank lines nor comments", async () => {
    expect(await tooLong("server/review/x.ts", fn(MAX_FUNCTION_LINES))).toEqual([]);
  });

  it("passes a data table as a module-level constant, and tests", async () => {
    const table = `export const TABLE = {\n${Array.from({ length: 400 }, (_, i) => `  k${i}: ${i},`).join("\n")}\n};\n`;
    expect(await tooLong("server/review/x.ts", table)).toEqual([]);
    expect(await tooLong("server/review/x.test.ts", fn(400))).toEqual([]);
  });
});
