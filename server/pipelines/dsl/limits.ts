/**
 * Resource limits for untrusted pipeline files (they can come from uploads and rooms, not just the
 * local disk). Generous for real pipelines: UltraRAG's largest example is ~5 KB with 3 levels of step
 * nesting.
 */
export interface ParseLimits {
  /** Source size in UTF-8 bytes. */
  maxBytes: number;
  /** YAML collection nesting (mappings/sequences inside each other). */
  maxYamlDepth: number;
  /** loop/branch nesting inside the pipeline. */
  maxStepDepth: number;
  /** yaml's maxAliasCount: how far aliases may expand before we call it a bomb. */
  maxAliasCount: number;
}

export const DEFAULT_LIMITS: Readonly<ParseLimits> = Object.freeze({
  maxBytes: 1024 * 1024,
  maxYamlDepth: 64,
  maxStepDepth: 16,
  maxAliasCount: 100,
});
