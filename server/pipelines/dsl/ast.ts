/**
 * The parsed pipeline: UltraRAG's four step forms (spec §1.2) as a tree, with the source position of
 * everything a diagnostic may point at. Produced by parse.ts, consumed by validate.ts and later by the
 * build phase and the engine, so neither re-reads YAML.
 */
import type { Pos } from "./positions.ts";

/** A `key: value` pair from an `input:` or `output:` map (both sides are names). */
export interface NamePair {
  key: string;
  value: string;
  keyPos: Pos;
  valuePos: Pos;
}

export interface ServerEntry {
  alias: string;
  /** What the alias points at, e.g. `servers/retriever`; the registry resolves it. */
  path: string;
  aliasPos: Pos;
  pathPos: Pos;
}

/** `- alias.tool` (form "string") or `- alias.tool: {input, output}` (form "dict"). */
export interface ToolStep {
  kind: "tool";
  form: "string" | "dict";
  alias: string;
  tool: string;
  pos: Pos;
  /** input: param name → pool variable / `$param`; empty for the string form. */
  input: NamePair[];
  /** output: declared output key → new pool variable name. */
  output: NamePair[];
}

export interface LoopStep {
  kind: "loop";
  times: number;
  steps: Step[];
  pos: Pos;
}

export interface BranchCase {
  state: string;
  pos: Pos;
  steps: Step[];
}

export interface BranchStep {
  kind: "branch";
  /** The key as written: `branch`, or any key starting with it (UltraRAG accepts `branch1:` etc.). */
  key: string;
  /** router: all but the last element, run as ordinary steps before the router. */
  pre: Step[];
  /** router: the last element, the router tool itself. */
  router: ToolStep;
  branches: BranchCase[];
  pos: Pos;
}

export type Step = ToolStep | LoopStep | BranchStep;

export interface Pipeline {
  file: string;
  servers: ServerEntry[];
  steps: Step[];
}

/** `alias.tool` as UltraRAG prints it in logs and memory files. */
export const stepName = (s: ToolStep) => `${s.alias}.${s.tool}`;
