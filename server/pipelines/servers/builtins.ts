/**
 * Argus's built-in pipeline servers by name (`servers/<name>` in a pipeline resolves here). Adding a
 * server = writing `<name>.ts` with defineServer and listing it below.
 */
import { benchmark } from "./benchmark.ts";
import { corpus } from "./corpus.ts";
import { custom } from "./custom.ts";
import type { BuiltinFactory } from "./define.ts";
import { evaluation } from "./evaluation.ts";
import { generation } from "./generation.ts";
import { memory } from "./memory.ts";
import { promptServer } from "./prompt.ts";
import { reranker } from "./reranker.ts";
import { retriever } from "./retriever.ts";
import { router } from "./router.ts";
import { sayhello } from "./sayhello.ts";

export const BUILTIN_SERVERS: Readonly<Record<string, BuiltinFactory>> = Object.freeze(
  Object.fromEntries(
    [
      benchmark,
      corpus,
      custom,
      evaluation,
      generation,
      memory,
      promptServer,
      reranker,
      retriever,
      router,
      sayhello,
    ].map((f) => [f.serverName, f]),
  ),
);
