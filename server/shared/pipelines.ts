/**
 * Pipelines as the browser sees them: the step graph the pipeline page draws, the parameter form's
 * fields (which values are secrets, what type each has) and a run's input. Pure: the server builds the
 * graph from the parsed pipeline (server/pipelines/workspace/graph.ts); the browser lays it out.
 */
import { z } from "zod";

/** A place in the YAML (1-based), for jumping from a node or a diagnostic to its line. */
export interface SourcePos {
  line: number;
  col: number;
}

export type GraphNodeKind = "tool" | "prompt" | "loop" | "branch" | "end";

export interface GraphNode {
  /** Stable for one YAML shape: the step's place in the tree (`s2`, `s4.1`, `s5.case.complete.0`). */
  id: string;
  kind: GraphNodeKind;
  /** `alias.tool`, `loop ×3`, `branch` (the router's name is `alias` + `tool`), `end`. */
  label: string;
  alias?: string;
  tool?: string;
  /** What the step reads: the tool's parameter ← pool variable or `$parameter`. */
  inputs: { name: string; from: string }[];
  /** What the step writes: the tool's output key → pool variable. */
  outputs: { name: string; as: string }[];
  pos: SourcePos;
  /** Loops and branches the step sits in (0 at the top level). */
  depth: number;
  /** The server does not know this tool (the YAML has an error there). */
  unknown?: boolean;
}

export type GraphEdgeKind = "next" | "repeat" | "case" | "exit";

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  kind: GraphEdgeKind;
  /** A branch state, "repeat ×3", "done" … */
  label?: string;
}

export interface PipelineGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** What a secret parameter's value is replaced with when sent to the browser (the real value stays sealed). */
export const SECRET_MASK = "••••••••";

/** Parameter keys whose values are secrets: masked when read, sealed when stored. */
export const isSecretKey = (key: string) => /(^|_)(api_?key|token|secret|password|passwd)$/i.test(key);

export type ParamType = "string" | "number" | "integer" | "boolean" | "null" | "list" | "mapping";

/** One leaf of the parameter form: `alias` → path of keys inside it → value. */
export interface ParamField {
  alias: string;
  path: string[];
  type: ParamType;
  /** Optional only because JSON drops `undefined`: every field the server builds has one. */
  value?: unknown;
  secret: boolean;
  /** For a secret: whether a value is stored (the value itself is never sent). */
  set?: boolean;
  /** Plain words for the form (param-guide.ts); the form falls back to the path without them. */
  label?: string;
  help?: string;
  /** False when no step of the pipeline reads the parameter: the form folds it under "Advanced". */
  read?: boolean;
  /** The built-in server the alias runs, when it is one (the form's group heading). */
  server?: string;
}

export function paramTypeOf(v: unknown): ParamType {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "string") return "string";
  if (Array.isArray(v)) return "list";
  return "mapping";
}

/** A value typed into the form, read as its field's type; an error sentence naming the field otherwise. */
export function readParamInput(field: Pick<ParamField, "alias" | "path" | "type">, text: string) {
  const name = [field.alias, ...field.path].join(".");
  const fail = (why: string) => ({ ok: false as const, error: `${name}: ${why}` });
  switch (field.type) {
    case "string":
      return { ok: true as const, value: text };
    case "integer":
    case "number": {
      const t = text.trim();
      const n = Number(t);
      if (t === "" || !Number.isFinite(n)) return fail("must be a number");
      if (field.type === "integer" && !Number.isInteger(n)) return fail("must be a whole number");
      return { ok: true as const, value: n };
    }
    case "boolean":
      if (text === "true" || text === "false") return { ok: true as const, value: text === "true" };
      return fail("must be true or false");
    case "null":
      if (text.trim() === "" || text.trim() === "null") return { ok: true as const, value: null };
      return { ok: true as const, value: text };
    case "list":
    case "mapping": {
      try {
        const v: unknown = JSON.parse(text);
        if (field.type === "list" ? !Array.isArray(v) : v === null || typeof v !== "object" || Array.isArray(v))
          return fail(
            field.type === "list" ? "must be a JSON list, e.g. [1, 2]" : 'must be a JSON object, e.g. {"a": 1}',
          );
        return { ok: true as const, value: v };
      } catch {
        return fail(
          field.type === "list" ? "must be a JSON list, e.g. [1, 2]" : 'must be a JSON object, e.g. {"a": 1}',
        );
      }
    }
  }
}

/** What a run reads its questions from. */
export const runDatasetSchema = z.discriminatedUnion("kind", [
  /** The pipeline's own data set (the benchmark parameters as saved). */
  z.object({ kind: z.literal("sample") }),
  /** An uploaded .jsonl file's text. */
  z.object({
    kind: z.literal("upload"),
    name: z.string().trim().min(1).max(200),
    text: z.string().max(1_500_000, "Keep the uploaded data set under 1.5 MB."),
  }),
  /** One question, asked as a chat. */
  z.object({ kind: z.literal("chat"), question: z.string().trim().min(1, "Ask a question.").max(4000) }),
]);
export type RunDataset = z.infer<typeof runDatasetSchema>;

/** A pipeline's file stem: what names it in the workspace and its memory file. */
export const pipelineNameSchema = z
  .string()
  .trim()
  .min(1, "Give the pipeline a name.")
  .max(80, "Keep the name under 80 characters.")
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, "Use letters, digits, _ and - (it names the pipeline's files).");
