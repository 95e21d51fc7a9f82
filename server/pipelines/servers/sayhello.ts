/** servers/sayhello (spec §5.11): the smallest server, used by the P1 conformance check. */
import { defineServer } from "./define.ts";

export const sayhello = defineServer({
  name: "sayhello",
  defaults: { name: "UltraRAG v3" },
  tools: {
    greet: { params: ["name"], output: "name->msg", run: ({ name }) => ({ msg: `Hello, ${String(name)}!` }) },
  },
});
