/**
 * What the JavaScript call models ask of the interpreter running them: the shared sink checks,
 * configuration findings and rule context (Analyzer), and calling a function value found in the code.
 * interp.ts's JsAnalyzer is one; the models name this instead, so they never import the interpreter
 * that imports them.
 */
import type { Analyzer } from "../analyzer.ts";
import type { Val } from "../values.ts";

export interface JsHost extends Analyzer {
  invoke(fn: NonNullable<Val["fn"]>, args: Val[], self?: Val): Val;
}
