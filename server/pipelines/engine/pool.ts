/**
 * The global variable pool and UltraRAG's two data-flow primitives (spec §2.3–2.7): resolving a
 * step's inputs for a branch path (`get_data`) and placing its outputs (`save_data`), including
 * router wrapping, skeleton padding with UNSET and the `memory_*` histories.
 *
 * Deliberate fixes (docs/pipelines.md): Q2 — inside a branch, plain (never-routed) batch lists are
 * filtered to the branch's items like wrapped ones; Q9 — the branch skeleton is any list with an
 * element carrying the state key, not only its first element.
 */
import { copyValue, isUnset, isWrapped, stateKey, UNSET, unwrap, type Wrapped } from "./values.ts";

export class PipelineRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PipelineRuntimeError";
  }

  /** Names the step and variable the pipeline got wrong (server/errors.ts isUserFacing). */
  get userFacing(): boolean {
    return true;
  }
}

export type BranchPair = readonly [depth: number, state: string];

/** "BASE/branch1_incomplete/branch2_x" → [[1,"incomplete"],[2,"x"]]; the state is split on its first "_". */
export function parsePath(path: string): BranchPair[] {
  const out: BranchPair[] = [];
  for (const seg of path.split("/")) {
    const m = /^branch(\d+)_(.*)$/s.exec(seg);
    if (m) out.push([Number(m[1]), m[2]!]);
  }
  return out;
}

const isMemory = (v: string) => v.startsWith("memory_");
/** `mem_x` → `memory_x` (spec §2.4). */
export const canonical = (v: string) => (v.startsWith("mem_") ? `memory_${v.slice(4)}` : v);
const matches = (e: unknown, pairs: readonly BranchPair[]) =>
  pairs.every(([d, s]) => (e as Record<string, unknown>)?.[stateKey(d)] === s);

export interface Resolved {
  args: Record<string, unknown>;
  /** True when the step has wrapped inputs and all of them are empty on this branch path: skip it. */
  skip: boolean;
}

export class VariablePool {
  readonly vars = new Map<string, unknown>();

  has(name: string) {
    return this.vars.has(canonical(name));
  }
  get(name: string) {
    return this.vars.get(canonical(name));
  }

  /** Registration during static setup (UltraData init): outputs start as None, histories as []. */
  declareOutput(name: string) {
    const v = canonical(name);
    this.vars.set(v, null);
    if (!isMemory(v)) this.vars.set(`memory_${v}`, []);
  }
  declareHistory(name: string) {
    this.vars.set(canonical(name), []);
  }

  /**
   * Resolves pool-variable inputs for a branch path. `$param` inputs are resolved by the caller; here
   * `inputs` maps parameter → variable name.
   */
  resolve(inputs: ReadonlyArray<readonly [param: string, variable: string]>, path: string, step: string): Resolved {
    const pairs = parsePath(path);
    const args: Record<string, unknown> = {};
    let signal: boolean | undefined;
    let mask: { length: number; keep: boolean[] } | null | undefined;
    for (const [param, variable] of inputs) {
      const name = canonical(variable);
      if (!this.vars.has(name))
        throw new PipelineRuntimeError(`Variable ${name} not found in var pool for step ${step}`);
      let val = this.vars.get(name);
      if (isWrapped(val)) {
        signal ??= true;
        val = val.filter((e) => matches(e, pairs) && !isUnset(e.data)).map((e) => e.data);
        if ((val as unknown[]).length !== 0) signal = false;
      } else if (pairs.length > 0 && Array.isArray(val) && !isMemory(name)) {
        // Q2 fixed: keep a plain batch aligned with the branch's filtered items.
        mask ??= this.branchMask(pairs);
        if (mask && mask.length === val.length) val = val.filter((_, i) => mask!.keep[i]);
      }
      args[param] = val;
    }
    return { args, skip: signal === true };
  }

  /** Which items of the batch are on this branch path, from the branch skeleton. */
  private branchMask(pairs: readonly BranchPair[]): { length: number; keep: boolean[] } | null {
    const skeleton = this.skeleton(pairs[pairs.length - 1]![0]);
    return skeleton ? { length: skeleton.length, keep: skeleton.map((e) => matches(e, pairs)) } : null;
  }

  /** The first pool list in which some element carries `branch<depth>_state` (Q9: any element, not only the first). */
  private skeleton(depth: number, except?: string): Wrapped[] | undefined {
    const key = stateKey(depth);
    for (const [name, v] of this.vars) {
      if (name === except || !Array.isArray(v) || v.length === 0) continue;
      if (v.some((e) => e !== null && typeof e === "object" && !Array.isArray(e) && key in e)) return v as Wrapped[];
    }
    return undefined;
  }

  /**
   * Stores one output value at `path` (spec §2.5) and appends its unwrapped copy to the variable's
   * history. Returns the routing states when `router` is set. `memory` receives the snapshot entry.
   */
  place(
    target: string,
    value: unknown,
    path: string,
    step: string,
    router: boolean,
    memory: Record<string, unknown>,
  ): Set<string> | undefined {
    const name = canonical(target);
    const pairs = parsePath(path);
    let states: Set<string> | undefined;
    let stored: unknown;
    if (router) {
      ({ stored, states } = this.placeRouted(name, value, pairs, step));
    } else if (pairs.length === 0) {
      stored = value;
    } else {
      stored = this.placeInBranch(name, value, pairs, step);
    }
    this.vars.set(name, stored);
    if (isMemory(name)) {
      memory[name] = copyValue(stored);
    } else {
      const entry = copyValue(unwrap(stored));
      const history = this.vars.get(`memory_${name}`);
      if (Array.isArray(history)) history.push(entry);
      else this.vars.set(`memory_${name}`, [entry]);
      memory[`memory_${name}`] = entry;
    }
    return states;
  }

  private placeRouted(name: string, value: unknown, parent: readonly BranchPair[], step: string) {
    if (!Array.isArray(value))
      throw new PipelineRuntimeError(
        `Router step ${step} must return a list of {data, state} for \`${name}\`, got ${typeof value}`,
      );
    const routed = value.map((o, i) => {
      const r = o as { data?: unknown; state?: unknown } | null;
      if (r === null || typeof r !== "object" || typeof r.state !== "string" || r.state === "") {
        throw new PipelineRuntimeError(
          `Router step ${step}: item ${i} of \`${name}\` must be {data, state} with a state name`,
        );
      }
      return { data: r.data, state: r.state };
    });
    const k = (parent.length ? parent[parent.length - 1]![0] : 0) + 1;
    const key = stateKey(k);
    const current = this.vars.get(name);
    let stored: Wrapped[];
    if (k === 1 && !isWrapped(current)) {
      stored = routed.map((r) => ({ data: r.data, [key]: r.state }));
    } else {
      const base = isWrapped(current) ? current.map((e) => ({ ...e })) : this.padded(parent, name);
      if (!base)
        throw new PipelineRuntimeError(
          `Router step ${step} runs in branch ${describePath(parent)} but no routed list exists to nest \`${name}\` in`,
        );
      const positions = base.flatMap((e, i) => (matches(e, parent) ? [i] : []));
      this.checkCount(positions.length, routed.length, name, parent, step);
      positions.forEach((p, j) => (base[p] = { ...base[p]!, data: routed[j]!.data, [key]: routed[j]!.state }));
      stored = base;
    }
    // Other routed lists of the same batch follow the new routing (upstream copies branch<k>_state).
    for (const [other, v] of this.vars) {
      if (other === name || isMemory(other) || !Array.isArray(v) || v.length !== stored.length) continue;
      if (!isWrapped(v) || !v.some((e) => e !== null && typeof e === "object" && key in e)) continue;
      this.vars.set(
        other,
        v.map((e, i) => (key in stored[i]! ? { ...e, [key]: stored[i]![key] } : e)),
      );
    }
    return { stored, states: new Set(routed.map((r) => r.state)) };
  }

  private placeInBranch(name: string, value: unknown, pairs: readonly BranchPair[], step: string): unknown {
    const current = this.vars.get(name);
    const base = isWrapped(current) ? current.map((e) => ({ ...e })) : this.padded(pairs, name);
    if (!base) return value; // no routed list at this depth: plain assignment, as upstream
    if (!Array.isArray(value))
      throw new PipelineRuntimeError(
        `Step ${step} runs in branch ${describePath(pairs)} and must return a list for \`${name}\` (one value per item), got ${typeof value}`,
      );
    const positions = base.flatMap((e, i) => (matches(e, pairs) ? [i] : []));
    this.checkCount(positions.length, value.length, name, pairs, step);
    positions.forEach((p, j) => (base[p] = { ...base[p]!, data: value[j] }));
    return base;
  }

  /** A new wrapped list shaped like the skeleton at this depth, every item UNSET. */
  private padded(pairs: readonly BranchPair[], except: string): Wrapped[] | undefined {
    if (pairs.length === 0) return undefined;
    const skeleton = this.skeleton(pairs[pairs.length - 1]![0], except);
    return skeleton?.map((e) => {
      const { data: _data, ...states } = e;
      return { ...states, data: UNSET };
    });
  }

  private checkCount(slots: number, values: number, name: string, pairs: readonly BranchPair[], step: string) {
    if (slots === values) return;
    throw new PipelineRuntimeError(
      `Step ${step} returned ${values} value(s) for \`${name}\` but branch ${describePath(pairs)} has ${slots} item(s) (length ${values < slots ? "<" : ">"} items in the pool)`,
    );
  }
}

const describePath = (pairs: readonly BranchPair[]) =>
  pairs.length ? pairs.map(([d, s]) => `branch${d}_${s}`).join("/") : "BASE";
