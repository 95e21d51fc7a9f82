/**
 * The agent with the real review tools (server/agent/tools) over a real folder, through the Sandbox:
 * a path escape in the model's arguments is refused with an error text (nothing outside is read) and
 * the review goes on to a checked report.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedServer } from "../../llm/scripted/server.ts";
import { clientFor, startServer } from "../../llm/test-support.ts";
import { Sandbox, createReviewTools, runToolCall, type AgentEvent } from "../../agent/index.ts";
import { reviewWithAgent } from "./review.ts";
import { modelFinding, reportText } from "./test-support.ts";

let server: ScriptedServer;
let base: string;
let root: string;
const SECRET = "outside-secret-7f3a";

beforeAll(async () => {
  base = mkdtempSync(path.join(os.tmpdir(), "argus-agent-"));
  root = path.join(base, "src");
  mkdirSync(path.join(root, "lib"), { recursive: true });
  writeFileSync(path.join(base, "secret.txt"), SECRET);
  writeFileSync(
    path.join(root, "lib", "db.ts"),
    "import db from './conn';\n\nexport const getUser = (id: string) =>\n  db.query(`SELECT * FROM users WHERE id = ${id}`);\n",
  );
  server = await startServer([
    { match: "Review scope", toolCalls: [{ name: "read_file", input: { path: "../secret.txt" } }] },
    {
      match: "/^(?![\\s\\S]*outside-secret)[\\s\\S]*secret\\.txt/",
      toolCalls: [{ name: "grep", input: { pattern: "SELECT" } }],
    },
    {
      match: "lib/db.ts",
      text: reportText([
        modelFinding({
          title: "SQL injection",
          file: "lib/db.ts",
          start_line: 3,
          end_line: 4,
          evidence: "db.query(`SELECT * FROM users WHERE id = ${id}`)",
        }),
      ]),
    },
    {
      match: "review it critically",
      text: reportText([
        modelFinding({
          title: "SQL injection",
          file: "lib/db.ts",
          start_line: 3,
          end_line: 4,
          evidence: "db.query(`SELECT * FROM users WHERE id = ${id}`)",
        }),
      ]),
    },
  ]);
});
afterAll(async () => {
  await server.close();
  rmSync(base, { recursive: true, force: true });
});

describe("agent with the real tools", () => {
  it("refuses a path escape, greps, and produces a checked report", async () => {
    const tools = createReviewTools(
      { root, staticFindings: async () => [] },
      { only: ["list_dir", "read_file", "grep"] },
    );
    const sandbox = new Sandbox(root);
    const events: AgentEvent[] = [];
    try {
      const out = await reviewWithAgent({
        llm: clientFor(server, "anthropic", { maxRetries: 0 }),
        system: "You review code.",
        context: { scope: { kind: "project" }, files: ["lib/db.ts"], languages: { TypeScript: 1 } },
        tools,
        runToolCall,
        readFile: async (p) => {
          try {
            return sandbox.readFile(p).content;
          } catch {
            return null;
          }
        },
        settings: { verify: false },
        onEvent: (e) => events.push(e),
      });
      const results = events.filter((e) => e.type === "tool_result");
      expect(results.map((e) => [e.name, e.isError])).toEqual([
        ["read_file", true],
        ["grep", false],
      ]);
      expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain(SECRET);
      expect(out.report.findings).toMatchObject([
        { title: "SQL injection", file: "lib/db.ts", startLine: 3, endLine: 4 },
      ]);
    } finally {
      tools.close();
    }
  });
});
