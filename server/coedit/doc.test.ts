/** A pipeline's and a prompt's shared doc: YAML and parameter fields in, the same out, merges by field. */
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import {
  decodeBinary,
  encodeBinary,
  paramFieldsOf,
  parametersOf,
  pipelineParams,
  pipelineYaml,
  readPipelineDoc,
  replaceText,
  writePipelineDoc,
} from "../shared/coedit.ts";

const source = "# title: Demo\nservers:\n  retriever: servers/retriever\npipeline:\n  - retriever.search\n";
const parameters = {
  retriever: { top_k: 5, index: { path: "data/index", nlist: 8 }, api_key: "••••••••" },
  generation: { models: ["a", "b"], options: {} },
  empty: null,
};

/** Two docs that exchange their whole state (what the server relays, in one step). */
function sync(a: Y.Doc, b: Y.Doc) {
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)));
  Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)));
}

describe("pipeline doc", () => {
  it("gives back the YAML and parameters it was written with", () => {
    const doc = new Y.Doc();
    writePipelineDoc(doc, { source, parameters });
    expect(readPipelineDoc(doc)).toEqual({ source, parameters });
    // One field per leaf: a list is one field, an empty mapping and a null section are fields too.
    expect([...pipelineParams(doc).keys()].sort()).toEqual(
      [
        '["empty"]',
        '["generation","models"]',
        '["generation","options"]',
        '["retriever","api_key"]',
        '["retriever","index","nlist"]',
        '["retriever","index","path"]',
        '["retriever","top_k"]',
      ].sort(),
    );
  });

  it("survives the trip through an update (what is stored and sent)", () => {
    const doc = new Y.Doc();
    writePipelineDoc(doc, { source, parameters });
    const copy = new Y.Doc();
    Y.applyUpdate(copy, decodeBinary(encodeBinary(Y.encodeStateAsUpdate(doc))));
    expect(readPipelineDoc(copy)).toEqual({ source, parameters });
  });

  it("merges two people's edits of different parameter fields: both stay", () => {
    const a = new Y.Doc();
    writePipelineDoc(a, { source, parameters });
    const b = new Y.Doc();
    sync(a, b);
    pipelineParams(a).set('["retriever","top_k"]', 10);
    pipelineParams(b).set('["retriever","index","nlist"]', 16);
    sync(a, b);
    for (const d of [a, b]) {
      const p = readPipelineDoc(d).parameters as typeof parameters;
      expect(p.retriever.top_k).toBe(10);
      expect(p.retriever.index.nlist).toBe(16);
    }
  });

  it("writes a whole new draft (a graph edit) as a change of the part that differs", () => {
    const a = new Y.Doc();
    writePipelineDoc(a, { source, parameters });
    const b = new Y.Doc();
    sync(a, b);
    // b types at the top while a's graph adds a step at the end: both edits survive.
    pipelineYaml(b).insert(0, "# note\n");
    const edited = source.replace("  - retriever.search\n", "  - retriever.search\n  - generation.generate\n");
    writePipelineDoc(a, { source: edited, parameters });
    sync(a, b);
    expect(pipelineYaml(a).toString()).toBe("# note\n" + edited);
    expect(pipelineYaml(b).toString()).toBe(pipelineYaml(a).toString());
  });

  it("replaceText touches only what changed", () => {
    const doc = new Y.Doc();
    const text = doc.getText("t");
    text.insert(0, "hello world");
    const deltas: unknown[] = [];
    text.observe((e) => deltas.push(e.changes.delta));
    replaceText(text, "hello brave world");
    expect(text.toString()).toBe("hello brave world");
    expect(deltas).toEqual([[{ retain: 6 }, { insert: "brave " }]]);
    replaceText(text, "hello brave world");
    expect(deltas).toHaveLength(1);
  });

  it("parameter fields round-trip through the field map on their own", () => {
    expect(parametersOf(paramFieldsOf(parameters))).toEqual(parameters);
    expect(parametersOf(paramFieldsOf({}))).toEqual({});
  });
});

describe("parameter order", () => {
  it("follows the saved file whatever order the fields arrived in; new fields come after", () => {
    const saved = { z: { b: 1, a: 2 }, m: { x: "1" } };
    const fields = [...paramFieldsOf({ ...saved, n: { y: 3 } })].reverse();
    expect(JSON.stringify(parametersOf(fields, saved))).toBe(
      JSON.stringify({ z: { b: 1, a: 2 }, m: { x: "1" }, n: { y: 3 } }),
    );
  });
});
