/** explore on its own, and the beforeTurn seam (steering's hints and pause) it offers between iterations. */
import { describe, expect, it } from "vitest";
import { createBudget } from "../../llm/index.ts";
import { runLoop } from "../loop.ts";
import { explore } from "./explore.ts";
import { Stop } from "./stop.ts";
import { answerContract, critiqueRules, ofType, useScriptedRuns } from "./test-support.ts";
import type { BeforeTurn } from "./types.ts";

const llm = useScriptedRuns();

const listThenAnswer = [
  { match: "Review scope", toolCalls: [{ name: "list_dir", input: { path: "." } }] },
  { match: "README.md\nsrc/db.ts", text: "Two files." },
];

/** Lets pending promises and timers run, so a test can check that nothing happened meanwhile. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("explore", () => {
  it("alternates model turns and tool calls until the model answers without tools", async () => {
    const { run, events } = llm.start(listThenAnswer);
    expect(await explore(run, "exploring", 10)).toBe("end_turn");
    expect(run.state.iterations).toBe(2);
    expect(run.state.lastTurn).toMatchObject({ text: "Two files.", calls: [] });
    expect(run.state.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(ofType(events, "tool_result")).toMatchObject([{ name: "list_dir", isError: false }]);
  });

  it("stops after `limit` tool-using turns", async () => {
    const { run } = llm.start([{ toolCalls: [{ name: "list_dir", input: {} }] }]);
    expect(await explore(run, "exploring", 3)).toBe("max_iterations");
    expect(llm.server.requests).toHaveLength(3);
    // The last calls were answered, so a forced final pass can follow.
    expect(run.state.messages.at(-1)).toMatchObject({ role: "user", content: [{ type: "tool_result" }] });
  });

  it("reports an answer cut off at the output limit", async () => {
    const { run } = llm.start([{ text: "I will now", stopReason: "max_tokens" }]);
    expect(await explore(run, "exploring", 3)).toBe("max_tokens");
  });

  it("stops before a turn that would leave too little for the final pass", async () => {
    const { run } = llm.start([{ text: "never sent" }], { budget: createBudget({ maxTokens: 5000 }) });
    expect(await explore(run, "exploring", 3)).toBe("budget_exhausted");
    expect(llm.server.requests).toHaveLength(0);
  });

  it("labels its turns with the phase it is given", async () => {
    const { run, events } = llm.start([{ text: "Checked." }]);
    await explore(run, "critiquing", 3);
    expect(ofType(events, "token").every((e) => e.phase === "critiquing")).toBe(true);
  });
});

describe("explore: the beforeTurn seam", () => {
  it("adds the hook's hints to the conversation before each turn and shows it the state and phase", async () => {
    const seen: Array<[number, string]> = [];
    const beforeTurn: BeforeTurn = (state, phase) => {
      seen.push([state.iterations, phase]);
      return state.iterations === 0 ? ["Hint: look at the README first.", "  "] : ["Hint: check db.ts too."];
    };
    const { run } = llm.start(listThenAnswer, { beforeTurn });
    expect(await explore(run, "exploring", 10)).toBe("end_turn");
    expect(seen).toEqual([
      [0, "exploring"],
      [1, "exploring"],
    ]);
    expect(llm.turns()[0]).toBe("Review scope: the whole project.\nHint: look at the README first.");
    expect(llm.turns()[1]).toMatch(/README.md\nsrc\/db.ts\nHint: check db.ts too.$/);
  });

  it("holds the loop while the hook has not settled (pause) and carries on when it does (resume)", async () => {
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    const { run } = llm.start([{ text: "Done." }], { beforeTurn: () => paused });
    const exploring = explore(run, "exploring", 10);
    await settle();
    expect(llm.server.requests).toHaveLength(0);
    resume();
    expect(await exploring).toBe("end_turn");
    expect(llm.server.requests).toHaveLength(1);
  });

  it("ends a paused run as soon as it is cancelled, without a request", async () => {
    const controller = new AbortController();
    const { run } = llm.start([{ text: "never sent" }], {
      signal: controller.signal,
      beforeTurn: () => new Promise(() => {}),
    });
    const exploring = explore(run, "exploring", 10);
    await settle();
    controller.abort();
    await expect(exploring).rejects.toMatchObject({ reason: "cancelled" });
    expect(llm.server.requests).toHaveLength(0);
  });

  it("turns a failing hook into a Stop, so runLoop still ends with one done event", async () => {
    const { run } = llm.start([{ text: "never sent" }], {
      beforeTurn: () => Promise.reject(new Error("queue offline")),
    });
    const err = await explore(run, "exploring", 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stop);
    expect(err).toMatchObject({ reason: "error", message: "The beforeTurn hook failed: queue offline" });

    const events: string[] = [];
    const out = await runLoop({
      llm: run.llm,
      system: "s",
      firstMessage: "Review scope",
      tools: [],
      beforeTurn: () => {
        throw new Error("queue offline");
      },
      onEvent: (e) => events.push(e.type),
    });
    expect(out).toMatchObject({ stopReason: "error", error: "The beforeTurn hook failed: queue offline" });
    expect(events).toEqual(["status", "error", "done"]);
  });

  it("is wired from runLoop's options", async () => {
    const { run } = llm.start([{ match: "Hint: it is about SQL", text: "About SQL." }, { text: "Something else." }]);
    const out = await runLoop({
      llm: run.llm,
      system: "s",
      firstMessage: "What is it about?",
      tools: [],
      beforeTurn: () => ["Hint: it is about SQL"],
    });
    expect(out).toMatchObject({ stopReason: "end_turn", answer: "About SQL." });
  });

  it("stops the exploration when the hook says stop: its hints still go in, its text is a note", async () => {
    let turn = 0;
    const beforeTurn: BeforeTurn = () =>
      ++turn === 2 ? { hints: ["Hint: wrap up."], stop: "Stopped by Ada." } : undefined;
    const { run } = llm.start(listThenAnswer, { beforeTurn });
    expect(await explore(run, "exploring", 10)).toBe("stopped");
    // One turn ran; the second was never requested.
    expect(llm.server.requests).toHaveLength(1);
    expect(run.state.notes).toEqual(["Stopped by Ada."]);
    expect(run.state.messages.at(-1)).toMatchObject({
      role: "user",
      content: expect.arrayContaining([{ type: "text", text: "Hint: wrap up." }]),
    });
  });

  it("a stopped run answers with a forced final pass and ends as stopped, without self-critique", async () => {
    const { run } = llm.start([
      { match: "stopped the review here", text: `ANSWER: {"n": 7}` },
      { toolCalls: [{ name: "list_dir", input: {} }] },
    ]);
    let turn = 0;
    const out = await runLoop({
      llm: run.llm,
      system: "Review.",
      firstMessage: "Review scope",
      tools: run.tools,
      contract: answerContract(critiqueRules(2)),
      beforeTurn: () => (++turn === 3 ? { stop: "Stopped by Ada." } : undefined),
    });
    expect(out).toMatchObject({ stopReason: "stopped", value: { n: 7 } });
    expect(out.notes).toEqual(["Stopped by Ada.", "forced final pass (stopped)"]);
    // Two exploring turns and the forced final pass; no critique round.
    expect(llm.server.requests).toHaveLength(3);
  });
});
