/**
 * What the Python call models ask of the interpreter running them: the shared sink checks,
 * configuration findings and rule context (Analyzer), and which web framework the file imports.
 * interp.ts's PyAnalyzer is one; the models name this instead, so they never import the interpreter
 * that imports them. Also a function's parameters as the interpreter reads them.
 */
import type { Node } from "../../../treesitter.ts";
import type { Analyzer } from "../analyzer.ts";

export interface PyHost extends Analyzer {
  /** Which web framework the file imports (decides what a decorated function's parameters are). */
  readonly framework: "flask" | "fastapi" | "django" | null;
}

export interface Param {
  name: string;
  node: Node;
  kind: "plain" | "splat" | "kwsplat";
  type?: Node;
  default?: Node;
}
