/**
 * `servers/chat_history`: the one built-in a chat follow-up needs besides generation. It puts the
 * conversation (its `turns` parameter, `[{role, content}]`, written by the chat service) into the
 * variable pool as `messages`, where `generation.multiturn_generate` reads it. Only the pipeline
 * service's own run service knows it (service.ts passes it as an extra built-in): the catalog that
 * validates users' YAML does not, so no saved pipeline can name it.
 */
import { defineServer, ToolError } from "../servers/define.ts";

export const chatHistory = defineServer({
  name: "chat_history",
  defaults: { turns: [] },
  tools: {
    history: {
      params: ["turns"],
      output: "turns->messages",
      run: ({ turns }) => {
        if (!Array.isArray(turns)) throw new ToolError("chat_history.history: turns must be a list of {role, content}");
        return { messages: turns };
      },
    },
  },
});

/** The extra built-ins of web runs. */
export const CHAT_BUILTINS = { chat_history: chatHistory };
