/**
 * A grammar-neutral view of a call site (callee text, positional and keyword arguments), found from a
 * keyword anchor in the text. Each grammar names these nodes differently; the rules should not care.
 */
import type { GrammarId, Node } from "../../treesitter.ts";
import { codeNodeAt, type RuleContext } from "./context.ts";

export interface Call {
  node: Node;
  /** Callee text with whitespace removed: "child_process.exec", "cursor.execute", "exec.Command". */
  callee: string;
  /** Last segment of the callee: "exec", "execute", "Command". */
  name: string;
  args: Node[];
  /** Python keyword arguments (`shell=True`). */
  kwargs: Map<string, Node>;
  isNew: boolean;
}

const CALL_TYPES: Record<GrammarId, Record<string, { callee: string; args: string; isNew: boolean }>> = {
  javascript: {
    call_expression: { callee: "function", args: "arguments", isNew: false },
    new_expression: { callee: "constructor", args: "arguments", isNew: true },
  },
  typescript: {
    call_expression: { callee: "function", args: "arguments", isNew: false },
    new_expression: { callee: "constructor", args: "arguments", isNew: true },
  },
  tsx: {
    call_expression: { callee: "function", args: "arguments", isNew: false },
    new_expression: { callee: "constructor", args: "arguments", isNew: true },
  },
  python: { call: { callee: "function", args: "arguments", isNew: false } },
  go: { call_expression: { callee: "function", args: "arguments", isNew: false } },
  rust: { call_expression: { callee: "function", args: "arguments", isNew: false } },
  java: {
    method_invocation: { callee: "name", args: "arguments", isNew: false },
    object_creation_expression: { callee: "type", args: "arguments", isNew: true },
  },
};

const SKIP_ARG = new Set(["comment", "line_comment", "block_comment", "(", ")", ","]);

/** The call whose callee contains text offset `index` (the anchor), looking at most 4 levels up. */
export function callAt(ctx: RuleContext, index: number): Call | null {
  if (!ctx.grammar) return null;
  const shapes = CALL_TYPES[ctx.grammar];
  let node = codeNodeAt(ctx, index);
  for (let depth = 0; node && depth < 5; depth++, node = node.parent) {
    const shape = shapes[node.type];
    if (!shape) continue;
    const callee = node.childForFieldName(shape.callee);
    if (!callee || index < callee.startIndex || index >= callee.endIndex) return null;
    return toCall(ctx.grammar, node, callee, shape.args, shape.isNew);
  }
  return null;
}

/** The call node itself (when a rule already holds it). */
export function asCall(grammar: GrammarId, node: Node): Call | null {
  const shape = CALL_TYPES[grammar][node.type];
  const callee = shape && node.childForFieldName(shape.callee);
  return shape && callee ? toCall(grammar, node, callee, shape.args, shape.isNew) : null;
}

function toCall(grammar: GrammarId, node: Node, calleeNode: Node, argsField: string, isNew: boolean): Call {
  let callee = calleeNode.text.replace(/\s+/g, "");
  if (grammar === "java" && !isNew) {
    const object = node.childForFieldName("object");
    if (object) callee = `${object.text.replace(/\s+/g, "")}.${callee}`;
  }
  const args: Node[] = [];
  const kwargs = new Map<string, Node>();
  const argsNode = node.childForFieldName(argsField);
  if (argsNode) {
    // A tagged template (`sql\`…\``) has the template itself as "arguments".
    const list = argsNode.type === "template_string" ? [argsNode] : argsNode.namedChildren;
    for (const arg of list) {
      if (!arg || SKIP_ARG.has(arg.type)) continue;
      if (arg.type === "keyword_argument") {
        const name = arg.childForFieldName("name")?.text;
        const value = arg.childForFieldName("value");
        if (name && value) kwargs.set(name, value);
      } else args.push(arg);
    }
  }
  const name = callee
    .split(/\.|::|\?\./)
    .pop()!
    .replace(/<.*$/, "");
  return { node, callee, name, args, kwargs, isNew };
}
