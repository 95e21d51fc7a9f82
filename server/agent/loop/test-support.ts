/**
 * Test-only: runs of the loop over the scripted LLM server (real Anthropic SDK, no key), so each step
 * can be exercised on its own against a real wire format. `useScriptedRuns()` registers the server's
 * lifecycle hooks in the calling test file.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { z } from "zod";
import type { LlmClient, StreamRequest } from "../../llm/index.ts";
import type { ScriptedServer } from "../../llm/scripted/server.ts";
import type { RuleInput } from "../../llm/scripted/script.ts";
import { clientFor, startServer } from "../../llm/test-support.ts";
import { type AgentEvent, agentEventSchema } from "../events.ts";
import { memoryTools } from "../test-support.ts";
import { type LoopRun, startRun } from "./state.ts";
import type { Contract, LoopOptions } from "./types.ts";

export const TREE = {
  "src/db.ts":
    "import db from './db';\nexport const getUser = (id) => db.query(`SELECT * FROM users WHERE id = ${id}`);\n",
  "README.md": "# demo\n",
};

export interface ScriptedRun {
  run: LoopRun;
  /** Every event the run emitted, each validated against the event union. */
  events: AgentEvent[];
  /** The requests the loop handed to the client, as it built them. */
  sent: StreamRequest[];
}

export function useScriptedRuns() {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  return {
    get server() {
      return server;
    },
    /** The latest user turn the server saw on each request, in order. */
    turns: () => server.requests.map((r) => r.lastUserText),
    /** A fresh run (first message appended, nothing sent yet) whose model follows `rules`. */
    start(rules: RuleInput[], extra: Partial<LoopOptions<unknown>> = {}): ScriptedRun {
      server.setScript(rules);
      const events: AgentEvent[] = [];
      const sent: StreamRequest[] = [];
      const run = startRun({
        llm: recording(clientFor(server, "anthropic", { maxRetries: 0 }), sent),
        system: "You review code.",
        firstMessage: "Review scope: the whole project.",
        tools: memoryTools(TREE),
        onEvent: (e) => events.push(agentEventSchema.parse(e)),
        ...extra,
      });
      return { run, events, sent };
    },
  };
}

/** The client, recording each request (a copy of its message list, which the loop keeps growing). */
function recording(llm: LlmClient, sent: StreamRequest[]): LlmClient {
  return {
    ...llm,
    stream(req) {
      sent.push({ ...req, messages: structuredClone(req.messages) });
      return llm.stream(req);
    },
  };
}

export const ofType = <K extends AgentEvent["type"]>(events: AgentEvent[], type: K) =>
  events.filter((e): e is Extract<AgentEvent, { type: K }> => e.type === type);

/** A small contract for the step tests: `ANSWER: {"n": <int>}`, with recognisable instructions. */
export const answerContract = (critique?: Contract<{ n: number }>["critique"]): Contract<{ n: number }> => ({
  tag: "ANSWER",
  schema: z.object({ n: z.number().int() }),
  repairMessage: (error) => `Fix your ANSWER: ${error}`,
  forcedMessage: (why) => `${why} Give the ANSWER now.`,
  maxTokensNudge: "Cut off: give the ANSWER now.",
  ...(critique ? { critique } : {}),
});

export const critiqueRules = (rounds: number, maxIterations = 3): Contract<{ n: number }>["critique"] => ({
  rounds,
  maxIterations,
  message: (json) => `Critique this: ${json.replace(/\s+/g, "")}`,
});
