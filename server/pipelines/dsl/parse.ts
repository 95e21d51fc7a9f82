/**
 * YAML text → Pipeline tree (ast.ts), following UltraRAG's step detection (spec §1.2): a string is a
 * tool step; a mapping is classified by its FIRST key only (contains "." → tool, `loop` → loop,
 * starts with `branch` → branch). Shape problems become diagnostics; the parser keeps going so one run
 * reports every malformed step. Names are checked against servers/tools later, by validate.ts.
 */
import {
  isMap,
  isScalar,
  isSeq,
  isAlias,
  LineCounter,
  parseDocument,
  type Document,
  type Pair,
  type YAMLMap,
} from "yaml";
import type { BranchCase, BranchStep, LoopStep, NamePair, Pipeline, ServerEntry, Step, ToolStep } from "./ast.ts";
import type { Diagnostic } from "./errors.ts";
import { checkAliases, checkSize, deepestNode, flowDepthOverflow } from "./guards.ts";
import { DEFAULT_LIMITS, type ParseLimits } from "./limits.ts";
import { SourceMap, type Pos } from "./positions.ts";

export interface ParseOptions {
  /** Shown in diagnostics; use the path the user typed. */
  file?: string;
  limits?: Partial<ParseLimits>;
}

export interface ParseResult {
  /** Undefined only when the file could not be read as YAML at all (size, syntax, bomb, top level). */
  pipeline: Pipeline | undefined;
  diagnostics: Diagnostic[];
}

const STEP_FORMS =
  "a step is `alias.tool`, `alias.tool: {input: …, output: …}`, `loop: {times, steps}` or `branch: {router, branches}`";

export function parsePipeline(source: string, options: ParseOptions = {}): ParseResult {
  const file = options.file ?? "<pipeline>";
  const limits: ParseLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const fail = (d: Diagnostic): ParseResult => ({ pipeline: undefined, diagnostics: [d] });

  const tooLarge = checkSize(source, file, limits);
  if (tooLarge) return fail(tooLarge);

  const lineCounter = new LineCounter();
  const map = new SourceMap(file, lineCounter);
  const overflow = flowDepthOverflow(source, limits.maxYamlDepth);
  if (overflow >= 0) {
    // The parser has not run, so the line counter is empty: count lines up to the offset ourselves.
    const before = source.slice(0, overflow);
    const line = before.split("\n").length;
    const col = overflow - before.lastIndexOf("\n");
    return fail(
      map.diag(
        "too_deep",
        { line, col },
        `YAML nesting is deeper than ${limits.maxYamlDepth} levels`,
        "flatten the document",
      ),
    );
  }

  const doc = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return { pipeline: undefined, diagnostics: doc.errors.map((e) => map.diag("yaml", map.at(e.pos[0]), e.message)) };
  }
  const deep = deepestNode(doc, limits.maxYamlDepth);
  if (deep)
    return fail(
      map.diag(
        "too_deep",
        map.of(deep),
        `YAML nesting is deeper than ${limits.maxYamlDepth} levels`,
        "flatten the document",
      ),
    );
  const bomb = checkAliases(doc, map, limits);
  if (bomb) return fail(bomb);

  return new Builder(doc, map, limits).pipeline();
}

/** Walks the YAML nodes once; one instance per parse. */
class Builder {
  private readonly diagnostics: Diagnostic[] = [];

  constructor(
    private readonly doc: Document,
    private readonly map: SourceMap,
    private readonly limits: ParseLimits,
  ) {}

  pipeline(): ParseResult {
    const root = this.deref(this.doc.contents);
    if (!isMap(root)) {
      this.error(
        "shape",
        this.map.of(root),
        "A pipeline file must be a mapping with `servers:` and `pipeline:`",
        "see examples/experiments/sayhello.yaml",
      );
      return { pipeline: undefined, diagnostics: this.diagnostics };
    }
    // Other top-level keys are ignored by UltraRAG (spec §0), so they are accepted silently here too.
    const serversPair = this.pair(root, "servers");
    const pipelinePair = this.pair(root, "pipeline");
    const servers = serversPair ? this.servers(serversPair) : [];
    if (!serversPair)
      this.error(
        "shape",
        this.map.of(root),
        "Missing `servers:`",
        "map each alias to a server, e.g. `servers: {sayhello: servers/sayhello}`",
      );
    let steps: Step[] = [];
    if (!pipelinePair)
      this.error("shape", this.map.of(root), "Missing `pipeline:`", "list the steps under `pipeline:`");
    else steps = this.steps(pipelinePair.value, this.map.of(pipelinePair.key), 0, "`pipeline:`");
    return { pipeline: { file: this.map.file, servers, steps }, diagnostics: this.diagnostics };
  }

  private servers(pair: Pair): ServerEntry[] {
    const node = this.deref(pair.value);
    if (!isMap(node)) {
      this.error(
        "shape",
        this.posOf(pair.value, pair.key),
        "`servers:` must map aliases to server paths",
        "e.g. `retriever: servers/retriever`",
      );
      return [];
    }
    const out: ServerEntry[] = [];
    for (const p of node.items) {
      const alias = this.keyName(p);
      const aliasPos = this.map.of(p.key);
      const value = this.deref(p.value);
      if (alias.includes(".")) {
        this.error(
          "shape",
          aliasPos,
          `Server alias \`${alias}\` contains a dot`,
          "steps are written `alias.tool`, so an alias cannot contain `.`",
        );
        continue;
      }
      if (!isScalar(value) || typeof value.value !== "string" || value.value === "") {
        this.error(
          "shape",
          this.posOf(p.value, p.key),
          `Server alias \`${alias}\` must name a server path`,
          "e.g. `servers/retriever`",
        );
        continue;
      }
      out.push({ alias, path: value.value, aliasPos, pathPos: this.map.of(value) });
    }
    return out;
  }

  /** A list of steps; `depth` counts the loops/branches around it. */
  private steps(raw: unknown, at: Pos, depth: number, what: string): Step[] {
    const node = this.deref(raw);
    if (!isSeq(node)) {
      this.error("shape", this.posOf(raw, undefined, at), `${what} must be a list of steps`, STEP_FORMS);
      return [];
    }
    const out: Step[] = [];
    for (const item of node.items) {
      const step = this.step(item, depth);
      if (step) out.push(step);
    }
    return out;
  }

  private step(raw: unknown, depth: number): Step | undefined {
    const node = this.deref(raw);
    const pos = this.posOf(raw);
    if (isScalar(node) && typeof node.value === "string") return this.toolRef(node.value, pos, "string");
    if (!isMap(node) || node.items.length === 0) {
      this.error("shape", pos, "Unrecognized pipeline step", STEP_FORMS);
      return undefined;
    }
    const [first, ...rest] = node.items as Pair[];
    const key = this.keyName(first!);
    const keyPos = this.map.of(first!.key, pos);
    for (const extra of rest) {
      this.warn(
        "ignored_key",
        this.map.of(extra.key, pos),
        `Only the first key of a step is read; \`${this.keyName(extra)}\` is ignored`,
        "put it in its own list item",
      );
    }
    if (key.includes(".")) return this.dictTool(first!, key, keyPos);
    if (key === "loop") return this.loop(first!, keyPos, depth);
    if (key.startsWith("branch")) return this.branch(first!, key, keyPos, depth);
    this.error("shape", keyPos, `Unrecognized pipeline step \`${key}\``, STEP_FORMS);
    return undefined;
  }

  private toolRef(ref: string, pos: Pos, form: ToolStep["form"]): ToolStep | undefined {
    const parts = ref.split(".");
    if (parts.length !== 2 || !parts[0] || !parts[1]) {
      this.error("bad_tool_ref", pos, `\`${ref}\` is not a tool reference`, "write `alias.tool` with exactly one dot");
      return undefined;
    }
    return { kind: "tool", form, alias: parts[0], tool: parts[1], pos, input: [], output: [] };
  }

  private dictTool(pair: Pair, ref: string, pos: Pos): ToolStep | undefined {
    const step = this.toolRef(ref, pos, "dict");
    const body = this.deref(pair.value);
    if (!isMap(body)) {
      this.error(
        "shape",
        this.posOf(pair.value, undefined, pos),
        `\`${ref}:\` must be followed by a mapping with \`input:\` and/or \`output:\``,
        "for no remapping use the plain form `- " + ref + "`",
      );
      return undefined;
    }
    if (!step) return undefined;
    for (const p of body.items) {
      const k = this.keyName(p);
      if (k === "input" || k === "output") step[k] = this.namePairs(p, `${ref} ${k}:`);
      else
        this.warn(
          "ignored_key",
          this.map.of(p.key, pos),
          `\`${k}\` is ignored in a tool step`,
          "only `input:` and `output:` are read",
        );
    }
    return step;
  }

  private namePairs(pair: Pair, what: string): NamePair[] {
    const node = this.deref(pair.value);
    const at = this.map.of(pair.key);
    if (!isMap(node)) {
      this.error(
        "shape",
        this.posOf(pair.value, pair.key),
        `\`${what}\` must be a mapping of names`,
        "e.g. `query_list: subq_ls`",
      );
      return [];
    }
    const out: NamePair[] = [];
    for (const p of node.items) {
      const key = this.keyName(p);
      const value = this.deref(p.value);
      const keyPos = this.map.of(p.key, at);
      if (!isScalar(value) || typeof value.value !== "string" || value.value === "") {
        this.error(
          "shape",
          this.posOf(p.value, p.key),
          `\`${what}\` ${key} must be a variable name or \`$parameter\``,
          "literal values belong in the parameter file",
        );
        continue;
      }
      out.push({ key, value: value.value, keyPos, valuePos: this.map.of(value, keyPos) });
    }
    return out;
  }

  private loop(pair: Pair, pos: Pos, depth: number): LoopStep | undefined {
    const body = this.deref(pair.value);
    if (!isMap(body)) {
      this.error(
        "malformed_loop",
        this.posOf(pair.value, undefined, pos),
        "`loop:` must be a mapping with `times:` and `steps:`",
        "e.g. `loop: {times: 3, steps: [...]}`",
      );
      return undefined;
    }
    if (!this.withinDepth(depth + 1, pos)) return undefined;
    this.warnIgnoredKeys(body, "loop", ["times", "steps"], pos);
    const timesPair = this.pair(body, "times");
    const times = this.deref(timesPair?.value);
    let ok = true;
    if (!isScalar(times) || typeof times.value !== "number" || !Number.isInteger(times.value)) {
      this.error(
        "malformed_loop",
        timesPair ? this.posOf(timesPair.value, timesPair.key) : pos,
        "Loop `times:` must be an integer",
        "the maximum number of iterations, e.g. `times: 3`",
      );
      ok = false;
    } else if (times.value < 1) {
      this.warn(
        "malformed_loop",
        this.map.of(times),
        `Loop \`times: ${times.value}\` never runs its steps`,
        "use a count of 1 or more",
      );
    }
    const stepsPair = this.pair(body, "steps");
    if (!stepsPair) {
      this.error("malformed_loop", pos, "Loop is missing `steps:`", "list the steps to repeat under `steps:`");
      return undefined;
    }
    const steps = this.steps(stepsPair.value, this.map.of(stepsPair.key), depth + 1, "Loop `steps:`");
    if (!ok) return undefined;
    return { kind: "loop", times: (times as { value: number }).value, steps, pos };
  }

  private branch(pair: Pair, key: string, pos: Pos, depth: number): BranchStep | undefined {
    const body = this.deref(pair.value);
    if (!isMap(body)) {
      this.error(
        "malformed_branch",
        this.posOf(pair.value, undefined, pos),
        `\`${key}:\` must be a mapping with \`router:\` and \`branches:\``,
        "e.g. `branch: {router: [router.route1], branches: {state1: [...]}}`",
      );
      return undefined;
    }
    if (!this.withinDepth(depth + 1, pos)) return undefined;
    this.warnIgnoredKeys(body, "branch", ["router", "branches"], pos);
    const routerPair = this.pair(body, "router");
    const routerNode = this.deref(routerPair?.value);
    if (!isSeq(routerNode) || routerNode.items.length === 0) {
      this.error(
        "malformed_branch",
        routerPair ? this.posOf(routerPair.value, routerPair.key) : pos,
        "Router not found in branch config",
        "`router:` is a list whose last item is the router tool, e.g. `router: [router.search_r1_check]`",
      );
      return undefined;
    }
    // Steps before the router run at the branch's own depth, as ordinary steps (spec §1.4).
    const items = routerNode.items;
    const pre: Step[] = [];
    for (const item of items.slice(0, -1)) {
      const s = this.step(item, depth);
      if (s) pre.push(s);
    }
    const last = items[items.length - 1];
    const routerStep = this.step(last, depth);
    if (routerStep && routerStep.kind !== "tool") {
      this.error(
        "malformed_branch",
        routerStep.pos,
        "The last item of `router:` must be the router tool",
        "move the loop/branch before it, or end the list with e.g. `router.route1`",
      );
      return undefined;
    }
    if (routerStep?.alias === "prompt") {
      this.error(
        "malformed_branch",
        routerStep.pos,
        "A prompt cannot be a router",
        "routers are tools returning `{data, state}` per item",
      );
    }
    const branches = this.cases(body, pos, depth + 1);
    if (!routerStep || !branches) return undefined;
    return { kind: "branch", key, pre, router: routerStep, branches, pos };
  }

  private cases(body: YAMLMap, pos: Pos, depth: number): BranchCase[] | undefined {
    const pair = this.pair(body, "branches");
    const node = this.deref(pair?.value);
    if (!isMap(node) || node.items.length === 0) {
      this.error(
        "malformed_branch",
        pair ? this.posOf(pair.value, pair.key) : pos,
        "Branch needs `branches:`, a mapping of router states to steps",
        "e.g. `branches: {incomplete: [...], complete: []}`",
      );
      return undefined;
    }
    const out: BranchCase[] = [];
    for (const p of node.items) {
      const state = this.keyName(p);
      const statePos = this.map.of(p.key, pos);
      // Branch paths are `BASE/branch1_<state>`, split on "/" (spec §2.8).
      if (state.includes("/"))
        this.error(
          "malformed_branch",
          statePos,
          `Branch state \`${state}\` contains \`/\``,
          "state labels are joined into paths with `/`; rename it",
        );
      const value = this.deref(p.value);
      if (!isSeq(value)) {
        this.error(
          "malformed_branch",
          this.posOf(p.value, p.key),
          `Branch \`${state}\` must be a list of steps`,
          "write `[]` for a state with nothing to do",
        );
        continue;
      }
      out.push({ state, pos: statePos, steps: this.steps(value, statePos, depth, `Branch \`${state}\``) });
    }
    return out;
  }

  private withinDepth(depth: number, pos: Pos): boolean {
    if (depth <= this.limits.maxStepDepth) return true;
    this.error(
      "too_deep",
      pos,
      `Loops and branches are nested deeper than ${this.limits.maxStepDepth} levels`,
      "flatten the pipeline",
    );
    return false;
  }

  // ── helpers ──────────────────────────────────────────────────────────────────────────────────────

  /** Follows an alias to its anchor; the alias budget was already enforced by guards.checkAliases. */
  private deref(node: unknown): unknown {
    return isAlias(node) ? node.resolve(this.doc) : node;
  }

  private pair(map: YAMLMap, key: string): Pair | undefined {
    return (map.items as Pair[]).find((p) => this.keyName(p) === key);
  }

  /** Keys are names: a plain `1:` or `yes:` is the string "1"/"yes", as a router state returns it. */
  /** Warns about each key of a loop's or branch's mapping other than the two it reads. */
  private warnIgnoredKeys(body: YAMLMap, what: "loop" | "branch", read: readonly [string, string], pos: Pos) {
    for (const p of body.items) {
      const k = this.keyName(p);
      if (!read.includes(k))
        this.warn(
          "ignored_key",
          this.map.of(p.key, pos),
          `\`${k}\` is ignored in a ${what}`,
          `a ${what} reads only \`${read[0]}:\` and \`${read[1]}:\``,
        );
    }
  }

  private keyName(p: Pair): string {
    const k = this.deref(p.key);
    if (isScalar(k)) return k.source !== undefined && typeof k.value !== "string" ? String(k.source) : String(k.value);
    return String(k);
  }

  /** Position of a value node, falling back to its key (for `key:` with nothing after it). */
  private posOf(node: unknown, key?: unknown, fallback?: Pos): Pos {
    const keyPos = this.map.of(key, fallback);
    // An empty value (`key:` and nothing) is a zero-width null scalar after the colon: point at the key.
    const empty = isScalar(node) && node.value === null && node.range?.[0] === node.range?.[1];
    return empty && (key || fallback) ? keyPos : this.map.of(node, keyPos);
  }

  private error(code: Diagnostic["code"], pos: Pos, message: string, hint?: string) {
    this.diagnostics.push(this.map.diag(code, pos, message, hint));
  }

  private warn(code: Diagnostic["code"], pos: Pos, message: string, hint?: string) {
    this.diagnostics.push(this.map.diag(code, pos, message, hint, "warning"));
  }
}
