/**
 * The one contract between the pipeline engine and a server, whoever implements it: Argus's built-in
 * TypeScript servers (in-process), an external MCP server over stdio or Streamable HTTP, or a
 * test-only server. The engine, `pipeline build` and `argus mcp serve` speak only this.
 *
 * A server describes itself the way UltraRAG's `server.yaml` does (spec §3.1): per tool / prompt,
 * `input` maps each function parameter to a pool variable or a `$parameter`, `output` lists the keys
 * the call returns; `parameters` are its `parameter.yaml` defaults.
 */
import type { LlmClientOptions } from "../../llm/index.ts";
import type { OutboundPolicy } from "../../net/outbound.ts";
import type { ServerSignature } from "../dsl/schema.ts";

export type { ServerSignature };

export interface CallContext {
  signal?: AbortSignal;
  /** Streaming text (generation in demo mode): forwarded as `token` events of the running step. */
  onToken?: (text: string) => void;
  /** Each model request's token usage (generation): summed per step into its step_end. */
  onUsage?: (usage: { input: number; output: number }) => void;
  /** Demo mode (`--demo`, UltraRAG's is_demo). */
  demo?: boolean;
  /** Directory relative paths in arguments resolve against (UltraRAG: the current directory). */
  cwd: string;
  /** A one-line notice for the run's log (e.g. "vllm runs on an OpenAI-compatible server here"). */
  notice?: (message: string) => void;
  /** Where servers/memory keeps memory: the database for runs in the web app (per user and
   * workspace); absent → UltraRAG's files under the storage root. */
  memory?: MemoryStore;
  /** The knowledge bases of the workspace the run is in (retriever `collection_name: kb:<name>`);
   * absent when the run is in no workspace. */
  knowledge?: KnowledgeBases;
  /** Set for runs started from the web app: the outbound policy (server/net/outbound.ts) that refuses
   * URLs a parameter aims at an internal address. Servers check a configured URL before their first
   * request and send every request through its `fetch` (each redirect checked again). */
  outbound?: OutboundPolicy;
  /** How far file parameters may reach (server/pipelines/servers/run-files.ts): unset — the run's
   * folder only (web-app runs); "operator" — anywhere, as UltraRAG (command-line runs). */
  fileAccess?: "operator";
  /** The operator's environment, for command-line runs only: a blank `api_key` is filled from it
   * (RERANKER_API_KEY, LLM_API_KEY …, UltraRAG's behaviour). Web-app runs never get the server's keys. */
  operatorEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * The workspace's model connection, for model steps whose parameters name no model of their own
   * (workspace-model.ts). null: a web-app run in a workspace without a usable connection; absent:
   * UltraRAG's behaviour (the parameters must name the model). Command-line runs get the server's
   * LLM_* settings here when they can answer.
   */
  model?: RunModel | null;
}

/** A workspace model connection as a run's servers use it. */
export interface RunModel {
  /** How the run page names it: "<connection> · <model>". */
  label: string;
  options: LlmClientOptions;
  /** Called by each step that uses it (the run records which connection ran). */
  onUse?: () => void;
}

/** What a run offers its servers beyond the call itself (RunOptions.context). */
export type RunContext = Pick<
  CallContext,
  "memory" | "knowledge" | "outbound" | "fileAccess" | "operatorEnv" | "model"
>;

export interface MemoryTurn {
  question: string;
  answer: string;
  at: Date;
}

/** A user's memory, per profile (the memory server's `user_id`, already checked to be a safe name). */
export interface MemoryStore {
  /** The global memory text; a profile without one starts as the heading `# MEMORY`. */
  global(profile: string): Promise<string>;
  saveTurn(profile: string, turn: MemoryTurn): Promise<void>;
  /** The most recent turns, newest first. */
  turns(profile: string, limit: number): Promise<MemoryTurn[]>;
}

export interface KnowledgeBases {
  /** For each query, the knowledge base's best `k` chunks (hybrid search, as the app's search box;
   * not cut to the strong matches, since the step asked for top_k), each with its text and its
   * calibrated relevance (0–1, server/retrieval/relevance.ts), so a step can weigh or drop weak
   * ones. A name that is not a knowledge base of the run's workspace fails with a sentence saying so. */
  search(name: string, queries: readonly string[], k: number): Promise<{ text: string; score: number }[][]>;
}

export interface PipelineServer {
  /** The server's name as in `servers/<name>` (e.g. "retriever"). */
  readonly name: string;
  signature(): Promise<ServerSignature>;
  /**
   * Runs a tool (or, for kind "prompt", renders a prompt) with arguments keyed by the function's
   * parameter names, and returns a record keyed by the signature's output names.
   */
  call(
    kind: "tool" | "prompt",
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}
