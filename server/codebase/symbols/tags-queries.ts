/**
 * The tags query of each grammar: the tags.scm its package ships, plus the patterns those files miss
 * (measured in shared/STACK.md: TS enums and type aliases, Rust `Type::new()` calls, Java constructors)
 * and a few more that an outline needs (top-level constants, TS namespaces, Go consts/vars, Rust
 * consts/trait methods/impl blocks). Captures follow the tags convention: `@name` plus one
 * `@definition.<kind>` / `@reference.<kind>` per pattern; `@scope.impl` marks a container that is not
 * a symbol of its own.
 */
import { packageQuery, type GrammarId } from "../treesitter.ts";

const JS_EXTRA = `
(method_definition name: (property_identifier) @name (#eq? @name "constructor")) @definition.constructor
(field_definition property: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant)))
`;

const TS_EXTRA = `
(method_definition name: (property_identifier) @name (#eq? @name "constructor")) @definition.constructor
(public_field_definition name: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
(enum_declaration name: (identifier) @name) @definition.enum
(type_alias_declaration name: (type_identifier) @name) @definition.type
(internal_module name: (_) @name) @definition.module
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant)))
(ambient_declaration (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
`;

const GO_EXTRA = `
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))
(type_alias name: (type_identifier) @name) @definition.type
`;

const RUST_EXTRA = `
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(function_signature_item name: (identifier) @name) @definition.method
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(impl_item type: (_) @name) @scope.impl
`;

const JAVA_EXTRA = `
(constructor_declaration name: (identifier) @name) @definition.constructor
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
`;

/**
 * The shipped files attach doc comments to definitions (`(comment)* @doc .` + #strip!/#select-adjacent!).
 * The index stores no docs, and those patterns cost 2.5× the compile time of the rest (measured: 106 ms
 * vs 41 ms for the TS query, per thread), so they are cut before compiling.
 */
function withoutDocs(query: string): string {
  return query
    .replace(/\(comment\)\*\s*@doc\s*\.\s*/g, "")
    .replace(/\(#(?:strip|select-adjacent|set-adjacent)![^)]*\)/g, "");
}

/** Query source for a grammar (read from the packages once per thread, by the query cache). */
export function tagsQuerySource(grammar: GrammarId): string {
  return withoutDocs(rawTagsQuerySource(grammar));
}

function rawTagsQuerySource(grammar: GrammarId): string {
  switch (grammar) {
    case "typescript":
    case "tsx":
      // The TS grammars extend the JS one: its tags.scm applies, then the TS-only patterns.
      return [
        packageQuery("tree-sitter-javascript", "tags.scm"),
        packageQuery("tree-sitter-typescript", "tags.scm"),
        TS_EXTRA,
      ].join("\n");
    case "javascript":
      return [packageQuery("tree-sitter-javascript", "tags.scm"), JS_EXTRA].join("\n");
    case "python":
      return packageQuery("tree-sitter-python", "tags.scm");
    case "go":
      return [packageQuery("tree-sitter-go", "tags.scm"), GO_EXTRA].join("\n");
    case "rust":
      return [packageQuery("tree-sitter-rust", "tags.scm"), RUST_EXTRA].join("\n");
    case "java":
      return [packageQuery("tree-sitter-java", "tags.scm"), JAVA_EXTRA].join("\n");
  }
}
