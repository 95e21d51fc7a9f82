/** finishChat: a chat turn always ends with an answer, continued or forced when it has to be. */
import { describe, expect, it } from "vitest";
import { createBudget } from "../../llm/index.ts";
import { finishChat } from "./chat.ts";
import { explore } from "./explore.ts";
import { ofType, useScriptedRuns } from "./test-support.ts";

const llm = useScriptedRuns();
const chat = { firstMessage: "Where is SQL built?" };

describe("finishChat", () => {
  it("answers with the model's text after a normal end, without another request", async () => {
    const { run } = llm.start([{ text: "In src/db.ts." }], chat);
    expect(await finishChat(run, await explore(run, "exploring", 5))).toBe("In src/db.ts.");
    expect(llm.server.requests).toHaveLength(1);
    expect(run.state.notes).toEqual([]);
  });

  it("continues an answer cut off at the output limit and joins the parts", async () => {
    const { run, events } = llm.start(
      [
        { match: "Continue exactly", text: "built in getUser.", times: 1 },
        { match: "Where is SQL", text: "SQL is ", stopReason: "max_tokens" },
      ],
      chat,
    );
    expect(await finishChat(run, await explore(run, "exploring", 5))).toBe("SQL is built in getUser.");
    expect(run.state.recoveries).toBe(1);
    expect(run.state.notes).toEqual(["answer continued after the output limit"]);
    expect(ofType(events, "status")).toMatchObject([{ phase: "max_tokens_recovery" }]);
  });

  it("says the answer was truncated when it is still cut off after the continuations", async () => {
    const { run } = llm.start([{ text: "more ", stopReason: "max_tokens" }], { ...chat, maxTokensRecoveries: 2 });
    expect(await finishChat(run, await explore(run, "exploring", 5))).toBe("more more more ");
    expect(run.state.notes).toEqual([
      "answer continued after the output limit",
      "answer truncated at the output limit",
    ]);
  });

  it("forces a final answer at the iteration limit, in the chat's words", async () => {
    const { run } = llm.start(
      [
        { match: "Answer the question now", text: "getUser builds it." },
        { toolCalls: [{ name: "read_file", input: { path: "src/db.ts" } }] },
      ],
      chat,
    );
    expect(await finishChat(run, await explore(run, "exploring", 1))).toBe("getUser builds it.");
    expect(llm.turns()[1]).toContain("You have reached the step limit for this answer.");
    expect(run.state.notes).toEqual(["forced final answer (iteration limit reached)"]);
  });

  it("keeps what was said when the budget refuses the forced answer", async () => {
    const { run } = llm.start([{ text: "never sent" }], { ...chat, budget: createBudget({ maxTokens: 10 }) });
    expect(await finishChat(run, await explore(run, "exploring", 5))).toBe("");
    expect(run.state.notes).toEqual(["forced final answer (budget nearly spent)"]);
  });
});
