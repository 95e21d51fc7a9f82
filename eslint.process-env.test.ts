/** The process.env rule fires everywhere in server/ but config.ts and test support. */
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: import.meta.dirname });
});

async function fired(filePath: string, code: string): Promise<boolean> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.some((m) => m.ruleId === "no-restricted-properties" && m.message.includes("[process-env]"));
}

describe("only server/config.ts reads process.env", () => {
  it.each([
    ["a member access", "server/pipelines/servers/x.ts", "export const k = process.env.OPENAI_API_KEY;\n"],
    ["a computed key", "server/llm/x.ts", 'export const k = process.env["ANTHROPIC_API_KEY"];\n'],
    ["a destructuring", "server/review/x.ts", "const { env } = process;\nexport const k = env.X;\n"],
    ["the whole object", "server/cli/x.ts", "export const e = { ...process.env };\n"],
  ])("fires on %s in a feature", async (_what, file, code) => {
    expect(await fired(file, code)).toBe(true);
  });

  it("passes in server/config.ts and in tests", async () => {
    const code = "export const k = process.env.PORT;\n";
    expect(await fired("server/config.ts", code)).toBe(false);
    expect(await fired("server/pipelines/x.test.ts", code)).toBe(false);
  });
});
