/**
 * What a symbol-index build does once every file is parsed: each import resolved to the file or
 * package it names (module resolution), and untrusted arguments followed into other files' functions.
 */
import type { Finding } from "../analysis/types.ts";
import { linkTaint, type LinkInput } from "../analysis/taint/link.ts";
import type { IndexWriter } from "./index-writer.ts";
import { collectModuleConfig, type ModuleConfig } from "./modules/config.ts";
import { ModuleResolver } from "./modules/resolve.ts";
import type { ImportRef } from "./types.ts";

/** Resolves and writes every file's imports; `imports` counts them, `resolved` those that found a file or package. */
export async function resolveImports(
  writer: IndexWriter,
  root: string,
  paths: string[],
  imports: { path: string; imports: ImportRef[] }[],
): Promise<{ moduleConfig: ModuleConfig; resolver: ModuleResolver; imports: number; resolved: number }> {
  const moduleConfig = await collectModuleConfig(root, paths);
  const resolver = new ModuleResolver(moduleConfig, paths);
  let importCount = 0;
  let resolvedImports = 0;
  for (const entry of imports) {
    for (const imp of entry.imports) {
      const target = resolvePythonFrom(resolver, imp, entry.path) ?? resolver.resolve(imp.specifier, entry.path);
      writer.addImport(entry.path, imp, target);
      importCount++;
      if (target.kind === "file" || target.kind === "package") resolvedImports++;
    }
  }
  return { moduleConfig, resolver, imports: importCount, resolved: resolvedImports };
}

/** Calls into other files' functions with untrusted arguments (needs every file and the resolver), less those already found. */
export function crossFileFindings(resolver: ModuleResolver, taint: LinkInput[], findings: Finding[]): Finding[] {
  const known = new Set(findings.map((f) => `${f.file}:${f.startLine}:${f.ruleId}`));
  return linkTaint(taint, (spec, name, from) => {
    const sub =
      from.endsWith(".py") && !spec.includes("#")
        ? resolver.resolve(`${spec}${spec.endsWith(".") ? "" : "."}${name}`, from)
        : null;
    if (sub?.kind === "file" && sub.path) return sub.path;
    const target = resolver.resolve(spec, from);
    return target.kind === "file" ? target.path : null;
  }).filter((f) => !known.has(`${f.file}:${f.startLine}:${f.ruleId}`));
}

/**
 * `from . import views` / `from pkg import sub`: when the named thing is a submodule, the import
 * points at that file rather than the package's __init__.
 */
function resolvePythonFrom(resolver: ModuleResolver, imp: ImportRef, from: string) {
  if (!from.endsWith(".py") || imp.names.length !== 1 || imp.names[0] === "*") return null;
  const sep = imp.specifier.endsWith(".") ? "" : ".";
  const sub = resolver.resolve(`${imp.specifier}${sep}${imp.names[0]}`, from);
  return sub.kind === "file" ? sub : null;
}
