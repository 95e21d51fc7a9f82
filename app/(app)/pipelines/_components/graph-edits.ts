/**
 * Edits of a pipeline's YAML made on its graph: add a step, a loop or a branch after the selected
 * node (or at the end), delete a node. The YAML stays the source of truth — each edit rewrites the
 * text (comments and the other steps' formatting kept, by the `yaml` library's document model) and
 * the graph follows it like any edit. Nodes are addressed by the graph's ids (workspace/graph.ts):
 * `s3` is the 4th step of `pipeline:`, `s3.0` the first step of that loop's body, `s5.pre.0` the
 * first item of a branch's `router:` list, `s5.case.done.0` the first step of its `done` state; the
 * branch's own id (`s5`) is the whole branch, a loop's the whole loop. Pure (the yaml library only):
 * tested in server/pipelines/workspace/graph-edits.test.ts, beside the graph.
 */
import { isMap, isScalar, isSeq, parseDocument, type Document, type YAMLMap, type YAMLSeq } from "yaml";

export type EditResult = { ok: true; source: string } | { ok: false; error: string };

/** What to add: a tool step, a loop around one, or a branch on a router with its states. */
export type NewStep =
  | { kind: "tool"; server: string; tool: string }
  | { kind: "loop"; times: number; server: string; tool: string }
  | { kind: "branch"; server: string; router: string; states: string[] };

const fail = (error: string): EditResult => ({ ok: false, error });
const keyOf = (node: unknown) => String(isScalar(node) ? node.value : node);

function open(source: string): Document | string {
  const doc = parseDocument(source);
  if (doc.errors.length) return "Fix the YAML's syntax first: the graph edits a pipeline that parses.";
  if (!isMap(doc.contents)) return "The YAML should be a mapping with servers: and pipeline:.";
  return doc;
}

const text = (doc: Document): EditResult => ({ ok: true, source: doc.toString({ indentSeq: true, lineWidth: 0 }) });

/** The alias of `servers/<server>` in the pipeline, added (as the server's name, or name2 …) when missing. */
function ensureAlias(doc: Document, server: string): string {
  let servers = doc.get("servers");
  if (!isMap(servers)) {
    doc.set("servers", doc.createNode({}));
    servers = doc.get("servers");
  }
  const map = servers as YAMLMap;
  const path = `servers/${server}`;
  const entry = map.items.find((p) => keyOf(p.value).replace(/\/+$/, "") === path);
  if (entry) return keyOf(entry.key);
  const taken = new Set(map.items.map((p) => keyOf(p.key)));
  let alias = server;
  for (let n = 2; taken.has(alias); n++) alias = `${server}${n}`;
  map.set(alias, path);
  return alias;
}

/** The `loop:` / `branch…:` body of a sequence item, when the item is one. */
function structural(item: unknown): { kind: "loop" | "branch"; body: YAMLMap } | null {
  if (!isMap(item) || item.items.length !== 1) return null;
  const pair = item.items[0]!;
  const key = keyOf(pair.key);
  if (!isMap(pair.value)) return null;
  if (key === "loop") return { kind: "loop", body: pair.value };
  if (key.startsWith("branch")) return { kind: "branch", body: pair.value };
  return null;
}

const seqIn = (map: YAMLMap, key: string): YAMLSeq | null => {
  const v = map.get(key, true);
  return isSeq(v) ? v : null;
};

/** The sequence a node id lives in and its index there; a sentence when the id names nothing here. */
function locate(doc: Document, id: string): { seq: YAMLSeq; index: number } | string {
  const missing = `The selected step is not in the YAML any more (${id}): pick it again on the graph.`;
  const m = /^s(\d+)((?:\.(?:\d+|pre\.\d+|case\.[^.]+\.\d+))*)$/.exec(id);
  if (!m) return missing;
  let seq: YAMLSeq | null = isSeq(doc.get("pipeline", true)) ? (doc.get("pipeline", true) as YAMLSeq) : null;
  let index = Number(m[1]);
  const rest = m[2] ? m[2].slice(1).split(".") : [];
  for (let i = 0; i < rest.length;) {
    const item = seq?.items[index];
    const s = structural(item);
    if (!s) return missing;
    if (rest[i] === "pre") {
      if (s.kind !== "branch") return missing;
      seq = seqIn(s.body, "router");
      index = Number(rest[i + 1]);
      i += 2;
    } else if (rest[i] === "case") {
      if (s.kind !== "branch") return missing;
      const branches = s.body.get("branches", true);
      seq = isMap(branches) ? seqIn(branches, rest[i + 1]!) : null;
      index = Number(rest[i + 2]);
      i += 3;
    } else {
      if (s.kind !== "loop") return missing;
      seq = seqIn(s.body, "steps");
      index = Number(rest[i]);
      i += 1;
    }
  }
  if (!seq || index >= seq.items.length) return missing;
  return { seq, index };
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The YAML with `step` added after node `after` (in that node's sequence), or at the end of `pipeline:`. */
export function insertStep(source: string, step: NewStep, after: string | null = null): EditResult {
  const doc = open(source);
  if (typeof doc === "string") return fail(doc);
  let node: unknown;
  if (step.kind === "loop") {
    if (!Number.isInteger(step.times) || step.times < 1 || step.times > 1000)
      return fail("A loop runs a whole number of times, from 1 to 1000.");
    node = { loop: { times: step.times, steps: [`${ensureAlias(doc, step.server)}.${step.tool}`] } };
  } else if (step.kind === "branch") {
    const states = step.states.map((s) => s.trim()).filter(Boolean);
    if (states.length === 0) return fail("Name at least one state the router returns (e.g. complete, incomplete).");
    const bad = states.find((s) => !NAME.test(s));
    if (bad) return fail(`"${bad}" cannot name a state: use letters, digits and _.`);
    if (new Set(states).size !== states.length) return fail("Each state is named once.");
    const alias = ensureAlias(doc, step.server);
    node = {
      branch: { router: [`${alias}.${step.router}`], branches: Object.fromEntries(states.map((s) => [s, []])) },
    };
  } else node = `${ensureAlias(doc, step.server)}.${step.tool}`;

  const created = doc.createNode(node);
  if (after === null || after === "end") {
    const pipeline = doc.get("pipeline", true);
    if (isSeq(pipeline)) pipeline.items.push(created);
    else doc.set("pipeline", doc.createNode([node]));
    return text(doc);
  }
  const at = locate(doc, after);
  if (typeof at === "string") return fail(at);
  at.seq.items.splice(at.index + 1, 0, created);
  return text(doc);
}

/** The YAML without node `id` (a loop or branch goes whole). A router cannot go alone: delete its branch. */
export function deleteStep(source: string, id: string): EditResult {
  if (id === "end") return fail("The end of the pipeline is not a step: there is nothing to delete.");
  const doc = open(source);
  if (typeof doc === "string") return fail(doc);
  const at = locate(doc, id);
  if (typeof at === "string") return fail(at);
  at.seq.items.splice(at.index, 1);
  return text(doc);
}
