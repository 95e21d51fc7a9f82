/**
 * Rendering UltraRAG's Jinja2 prompt templates, safely. Templates are user-editable files, so they run
 * in @huggingface/jinja's own interpreter: it evaluates the template language itself and never hands
 * a template a host object (no `constructor`, `__proto__`, `process`, `require`; attribute access is
 * a lookup in the interpreter's own maps). nunjucks compiles templates to JavaScript and is not safe
 * (STACK.md). On top of the interpreter this file adds what UltraRAG's
 * `SandboxedEnvironment(autoescape=True)` does observably (spec §5.4):
 *  - one trailing newline of the template is dropped (keep_trailing_newline=False), no trim_blocks or
 *    lstrip_blocks (the interpreter's Template class turns both on; we tokenize without them);
 *  - every string argument is HTML-escaped once (`& < > ' "`), as markupsafe.escape does, and list
 *    arguments have their string items escaped;
 *  - values print as Python prints them: True/False/None, lists and dicts as their repr (strings that
 *    came from arguments as `Markup('…')`), and that repr escaped, as autoescape escapes non-Markup;
 *  - limits a sandbox needs and Jinja2 leaves to the host: range size, evaluation steps, output size.
 * Deliberate difference: string literals written in the template print unescaped (Jinja2 escapes
 * `{{ "<b>" }}`); prompt templates do not print literals with markup, and arguments are escaped either way.
 */
import { Environment, Interpreter, parse, tokenize } from "@huggingface/jinja";
import { pyStrRepr } from "../engine/summary.ts";

export const MAX_TEMPLATE_CHARS = 1_000_000;
export const MAX_OUTPUT_CHARS = 4_000_000;
/** Jinja2's sandbox refuses ranges over 100,000 items (MAX_RANGE); so do we. */
export const MAX_RANGE = 100_000;
/** Evaluations, blocks and range items per render: a prompt over 100 passages takes a few hundred. */
export const MAX_STEPS = 200_000;

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TemplateError";
  }
}

/** markupsafe.escape: the five characters, in the entity forms Python writes. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>'"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&#39;", '"': "&#34;" })[c]!);
}

type Program = ReturnType<typeof parse>;
type RuntimeValue = { type: string; value: unknown; toString(): string };
type Statement = Parameters<Interpreter["evaluate"]>[0];

/** Statements whose value is not printed (a `{% set %}` evaluates to null, which must not print "None"). */
const STATEMENTS = new Set([
  "Set",
  "If",
  "For",
  "Break",
  "Continue",
  "Macro",
  "Comment",
  "CallStatement",
  "FilterStatement",
]);

/** The interpreter's string value class (not exported by the package): block results are made of it. */
const StringValue = (new Environment().set("s", "") as RuntimeValue).constructor as new (value: string) => RuntimeValue;

/** A template compiled once; render it with different variables. */
export function compileTemplate(source: string, name: string): Program {
  if (source.length > MAX_TEMPLATE_CHARS)
    throw new TemplateError(`template ${name} is ${source.length} characters; the limit is ${MAX_TEMPLATE_CHARS}`);
  try {
    return parse(tokenize(source, {}));
  } catch (err) {
    throw new TemplateError(`template ${name} is not valid Jinja: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Renders with UltraRAG's argument escaping. `vars` are plain JSON-like values; strings (and the
 * string items of lists) are escaped here, exactly once.
 */
export function renderTemplate(program: Program, vars: Record<string, unknown>, name: string): string {
  const env = new Environment();
  for (const [k, v] of [
    ["true", true],
    ["false", false],
    ["none", null],
    ["True", true],
    ["False", false],
    ["None", null],
  ] as const)
    env.set(k, v);
  env.set("range", (start: number, stop?: number, stepBy?: number) => {
    const items = boundedRange(start, stop, stepBy);
    steps += items.length;
    return items;
  });
  env.set("raise_exception", (message: unknown) => {
    throw new TemplateError(`template ${name} raised: ${String(message)}`);
  });
  let steps = 0;
  const markup = new WeakSet<object>();
  for (const [k, v] of Object.entries(vars)) {
    const value = env.set(k, escapeArgument(v)) as RuntimeValue;
    // Argument strings are Markup in UltraRAG; inside a printed list their repr says so.
    if (value.type === "StringValue") markup.add(value);
    else if (value.type === "ArrayValue")
      for (const item of value.value as RuntimeValue[]) if (item.type === "StringValue") markup.add(item);
  }

  const interpreter = new Interpreter(env);
  const inner = interpreter as unknown as {
    evaluate: (s: Statement, e: Environment) => RuntimeValue;
    evaluateBlock: (statements: Statement[], e: Environment) => RuntimeValue;
  };
  const evaluate = inner.evaluate.bind(interpreter);
  // Every evaluation and every block (a loop iteration with an empty body included) is a step.
  const step = () => {
    if (++steps > MAX_STEPS)
      throw new TemplateError(`template ${name} did not finish within ${MAX_STEPS.toLocaleString("en")} steps`);
  };
  inner.evaluate = (s, e) => {
    step();
    return evaluate(s, e);
  };
  inner.evaluateBlock = (statements, e) => {
    step();
    let out = "";
    for (const statement of statements) {
      const value = inner.evaluate(statement, e);
      const isStatement = STATEMENTS.has((statement as { type: string }).type);
      out += printed(value, isStatement, markup);
      if (out.length > MAX_OUTPUT_CHARS)
        throw new TemplateError(
          `template ${name} produced more than ${MAX_OUTPUT_CHARS.toLocaleString("en")} characters`,
        );
    }
    return new StringValue(out);
  };
  try {
    return String(interpreter.run(program).value);
  } catch (err) {
    if (err instanceof TemplateError) throw err;
    throw new TemplateError(`template ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function escapeArgument(v: unknown): unknown {
  if (typeof v === "string") return escapeHtml(v);
  if (Array.isArray(v)) return v.map((x) => (typeof x === "string" ? escapeHtml(x) : x));
  return v;
}

function boundedRange(start: number, stop?: number, step = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (![from, to, step].every(Number.isInteger) || step === 0)
    throw new TemplateError("range() takes whole numbers and a step other than 0");
  const count = Math.max(0, Math.ceil((to - from) / step));
  if (count > MAX_RANGE) throw new TemplateError(`range() of ${count} items is over the limit of ${MAX_RANGE}`);
  return Array.from({ length: count }, (_, i) => from + i * step);
}

/** What `{{ value }}` (or a block's value) adds to the output. */
function printed(value: RuntimeValue, isStatement: boolean, markup: WeakSet<object>): string {
  switch (value.type) {
    case "UndefinedValue":
      return "";
    case "NullValue":
      return isStatement ? "" : "None";
    case "StringValue":
      return String(value.value);
    case "BooleanValue":
      return value.value ? "True" : "False";
    case "IntegerValue":
    case "FloatValue":
      return value.toString();
    case "ArrayValue":
    case "TupleValue":
    case "ObjectValue":
    case "NamespaceValue":
      return escapeHtml(pyRepr(value, markup));
    default:
      return "";
  }
}

/** Python's repr of a runtime value (strings from arguments as Markup('…')). */
function pyRepr(value: RuntimeValue, markup: WeakSet<object>): string {
  switch (value.type) {
    case "StringValue": {
      const text = pyStrRepr(String(value.value));
      return markup.has(value) ? `Markup(${text})` : text;
    }
    case "BooleanValue":
      return value.value ? "True" : "False";
    case "NullValue":
    case "UndefinedValue":
      return "None";
    case "IntegerValue":
    case "FloatValue":
      return value.toString();
    case "ArrayValue":
      return `[${(value.value as RuntimeValue[]).map((v) => pyRepr(v, markup)).join(", ")}]`;
    case "TupleValue": {
      const items = (value.value as RuntimeValue[]).map((v) => pyRepr(v, markup));
      return items.length === 1 ? `(${items[0]},)` : `(${items.join(", ")})`;
    }
    case "ObjectValue":
    case "NamespaceValue":
      return `{${[...(value.value as Map<string, RuntimeValue>)]
        .map(([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v, markup)}`)
        .join(", ")}}`;
    default:
      return "None";
  }
}
