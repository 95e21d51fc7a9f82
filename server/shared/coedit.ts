/**
 * Co-editing (issue 29): the shared documents of a pipeline's draft and a review prompt's draft, for
 * the server and the browser alike. A document is a Yjs doc carried over the room of the thing it
 * edits (`pipeline:<uid>`, `prompt:<uid>`): a pipeline's has the YAML as a Y.Text and the parameter
 * values as a Y.Map of one entry per field (so two people editing different fields never conflict); a
 * prompt's has its text. Binary Yjs messages travel as base64 (the cluster adapter carries JSON only).
 * This module is isomorphic and imports no Yjs: the helpers below take the few methods of a Y.Text,
 * Y.Map and Y.Doc they use (structural types), so the server and the browser share them.
 */
import { z } from "zod";
import { roomNameSchema } from "./rooms.ts";

/** Root names of a pipeline's doc: its YAML and its parameter fields. */
export const PIPELINE_YAML = "yaml";
export const PIPELINE_PARAMS = "params";
/** Root name of a prompt's doc. */
export const PROMPT_TEXT = "text";

/** The roots each kind of document may have: an update that names another root is refused. */
export const DOC_ROOTS: Record<"pipeline" | "prompt", readonly string[]> = {
  pipeline: [PIPELINE_YAML, PIPELINE_PARAMS],
  prompt: [PROMPT_TEXT],
};

/**
 * The largest update one message carries, in base64 characters (a socket frame is at most 64 KB): a
 * keystroke is tens of bytes; a reconnect's offline edits fit unless they are pages of text.
 */
export const MAX_UPDATE_CHARS = 48 * 1024;
/** The largest awareness message (a cursor, a name, a colour, a line, a node). */
export const MAX_AWARENESS_CHARS = 4 * 1024;
/**
 * A document's cap, in bytes of its encoded state: past it, edits are refused and the editors are
 * asked to save a version (which starts the draft again from the saved text). Four times a pipeline's
 * own cap (256 KB) leaves room for the edit history Yjs keeps.
 */
export const DOC_MAX_BYTES = 1024 * 1024;

const base64 = (max: number) =>
  z
    .string()
    .min(1)
    .max(max, `Send at most ${max} characters at once; reload the editor to continue.`)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, "not base64");

/** What the browser shows of each editor: who they are, their colour, where their cursor is. */
export const awarenessStateSchema = z.object({
  user: z.object({
    name: z.string().max(120),
    color: z.string().regex(/^#[0-9a-f]{6}$/i),
    colorLight: z
      .string()
      .regex(/^#[0-9a-f]{6,8}$/i)
      .optional(),
    id: z.string().max(100).optional(),
  }),
  /** y-codemirror.next's selection: two Yjs relative positions (JSON). */
  cursor: z.object({ anchor: z.unknown(), head: z.unknown() }).nullable().optional(),
  /** The 1-based line of the cursor (the "who is editing" list and follow use it). */
  line: z.number().int().min(1).max(1_000_000).nullable().optional(),
  /** The graph node this person has selected. */
  node: z.string().max(200).nullable().optional(),
});
export type AwarenessState = z.infer<typeof awarenessStateSchema>;

export const docPayloads = {
  /** Open the room's draft: a y-protocols sync step 1 (the client's state vector). */
  "doc.open": z.object({ room: roomNameSchema, sync: base64(1024) }),
  /** An edit: y-protocols sync step 2 or update. `generation`: the one the client opened (DocOpened). */
  "doc.update": z.object({
    room: roomNameSchema,
    generation: z.number().int().nonnegative(),
    sync: base64(MAX_UPDATE_CHARS),
  }),
  /** The sender's cursor and selection: a y-protocols awareness update. */
  "doc.awareness": z.object({ room: roomNameSchema, update: base64(MAX_AWARENESS_CHARS) }),
  /** Save the merged draft as a version (a pipeline) or as the prompt's text. */
  "doc.save": z.object({ room: roomNameSchema, message: z.string().trim().max(500).optional() }),
};

/** The reply to `doc.open`. */
export interface DocOpened {
  /** y-protocols sync step 2: what the client lacks. */
  sync: string;
  /** y-protocols sync step 1: the server's state vector (the client answers with what the server lacks). */
  serverSync: string;
  /** The awareness states the server knows (others' cursors). */
  awareness: string | null;
  /** Grows when the draft was started again from a version: an edit of another generation is refused. */
  generation: number;
  /** A viewer follows: their edits are refused. */
  readOnly: boolean;
  /** The doc is past DOC_MAX_BYTES: save a version to continue. */
  full: boolean;
}

/** What the server tells a doc's editors besides edits. */
export type DocNotice =
  | { kind: "full"; message: string }
  | { kind: "saved"; version: number | null; by: string }
  /** The draft was started again (after a full doc was saved): open it again. */
  | { kind: "reset"; generation: number }
  | { kind: "ended"; message: string };

export function encodeBinary(bytes: Uint8Array): string {
  let text = "";
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 0x8000)
    text += String.fromCharCode(...bytes.subarray(i, Math.min(bytes.length, i + 0x8000)));
  return btoa(text);
}

export function decodeBinary(text: string): Uint8Array {
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** The parts of Yjs types the helpers below use (a Y.Text, a Y.Map, a Y.Doc satisfy them). */
export interface TextLike {
  toString(): string;
  insert(index: number, text: string): void;
  delete(index: number, length: number): void;
  readonly doc: DocLike | null;
}
export interface MapLike {
  keys(): IterableIterator<string>;
  entries(): IterableIterator<[string, unknown]>;
  get(key: string): unknown;
  has(key: string): boolean;
  set(key: string, value: unknown): unknown;
  delete(key: string): void;
  readonly doc: DocLike | null;
}
export interface DocLike {
  transact(run: () => void, origin?: unknown): void;
  getText(name: string): TextLike;
  getMap(name: string): MapLike;
}

// ── The pipeline's parameters, field by field ────────────────────────────────────────────────────

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The key of a parameter field: its alias and path (JSON, so any key text is safe). */
export const fieldKey = (alias: string, path: readonly string[]): string => JSON.stringify([alias, ...path]);

/**
 * A parameter file as fields: one entry per leaf (a list is one field; an empty mapping or a null
 * section is a field of its own, so it survives the round trip).
 */
export function paramFieldsOf(parameters: Record<string, unknown>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (value: unknown, path: string[]) => {
    if (isMapping(value) && Object.keys(value).length > 0) {
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
    } else out.set(JSON.stringify(path), value);
  };
  for (const [alias, section] of Object.entries(parameters)) walk(section, [alias]);
  return out;
}

/**
 * The parameter file the fields make (the inverse of paramFieldsOf). A map's order differs from one
 * client to another, so the fields are laid out in the order of `like` (the saved file: a draft saved
 * unchanged is the same file, and a version's diff shows only what changed), new fields after, sorted.
 */
export function parametersOf(
  fields: Iterable<[string, unknown]>,
  like: Record<string, unknown> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const rank = new Map([...paramFieldsOf(like).keys()].map((key, i) => [key, i]));
  const sorted = [...fields].sort(([a], [b]) => {
    const ra = rank.get(a) ?? Infinity;
    const rb = rank.get(b) ?? Infinity;
    return ra !== rb ? ra - rb : a < b ? -1 : a > b ? 1 : 0;
  });
  for (const [key, value] of sorted) {
    let path: unknown;
    try {
      path = JSON.parse(key);
    } catch {
      continue;
    }
    if (!Array.isArray(path) || path.length === 0 || !path.every((p) => typeof p === "string")) continue;
    let node = out;
    for (const part of path.slice(0, -1) as string[]) {
      const next = node[part];
      if (!isMapping(next)) node[part] = {};
      node = node[part] as Record<string, unknown>;
    }
    const last = path[path.length - 1] as string;
    // A field under a mapping that also has deeper fields keeps the deeper ones.
    if (!(isMapping(node[last]) && isMapping(value) && Object.keys(value).length === 0)) node[last] = value;
  }
  return out;
}

// ── Reading and writing documents ────────────────────────────────────────────────────────────────

/** Replaces a Y.Text's content with `next` as one edit of the part that changed (prefix/suffix kept). */
export function replaceText(text: TextLike, next: string): void {
  const current = text.toString();
  if (current === next) return;
  let start = 0;
  const max = Math.min(current.length, next.length);
  while (start < max && current.charCodeAt(start) === next.charCodeAt(start)) start++;
  let end = 0;
  while (end < max - start && current.charCodeAt(current.length - 1 - end) === next.charCodeAt(next.length - 1 - end))
    end++;
  const run = () => {
    if (current.length - start - end > 0) text.delete(start, current.length - start - end);
    if (next.length - start - end > 0) text.insert(start, next.slice(start, next.length - end));
  };
  if (text.doc) text.doc.transact(run);
  else run();
}

/**
 * Sets the parameter fields to `parameters`: only the fields whose value changed are written. A
 * secret typed into the form (an API key) is not: `secretOf` tells which leaves are secrets, and
 * those keep the doc's value (the mask) — the caller keeps what was typed for the version's save.
 */
export function writeParams(
  map: MapLike,
  parameters: Record<string, unknown>,
  secretOf: (key: string) => boolean = () => false,
): void {
  const next = paramFieldsOf(parameters);
  for (const key of next.keys()) if (secretOf(key)) next.set(key, map.has(key) ? map.get(key) : "");
  const run = () => {
    for (const key of [...map.keys()]) if (!next.has(key)) map.delete(key);
    for (const [key, value] of next) if (JSON.stringify(map.get(key)) !== JSON.stringify(value)) map.set(key, value);
  };
  if (map.doc) map.doc.transact(run);
  else run();
}

export interface PipelineDraft {
  source: string;
  parameters: Record<string, unknown>;
}

export const pipelineYaml = (doc: DocLike) => doc.getText(PIPELINE_YAML);
export const pipelineParams = (doc: DocLike) => doc.getMap(PIPELINE_PARAMS);
export const promptText = (doc: DocLike) => doc.getText(PROMPT_TEXT);

/** A pipeline's draft as the doc holds it now (parameters in the order of `like`: see parametersOf). */
export function readPipelineDoc(doc: DocLike, like?: Record<string, unknown>): PipelineDraft {
  return { source: pipelineYaml(doc).toString(), parameters: parametersOf(pipelineParams(doc).entries(), like) };
}

/** Writes a whole draft into a pipeline's doc in one transaction (the server's first content). */
export function writePipelineDoc(doc: DocLike, draft: PipelineDraft): void {
  doc.transact(() => {
    replaceText(pipelineYaml(doc), draft.source);
    writeParams(pipelineParams(doc), draft.parameters);
  });
}
