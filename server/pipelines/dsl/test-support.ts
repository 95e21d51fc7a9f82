/**
 * Test fixtures for the DSL tests: the UltraRAG checkout under ../shared/ultrarag (read-only) and a
 * server catalog built from test/fixtures/pipelines/ultrarag-catalog.yaml plus each server's real
 * parameter.yaml. Paths resolve from this file, not the CWD, so tests run from anywhere.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { catalogFromRecord, type ServerCatalog } from "./catalog.ts";

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, "../../..");
export const ultraragRoot = resolve(repoRoot, "../shared/ultrarag");
export const fixturesDir = join(repoRoot, "test/fixtures/pipelines");

export const readUltrarag = (rel: string) => readFileSync(join(ultraragRoot, rel), "utf8");

/** Every `*.yaml` directly under examples/<group>/ (the pipelines; parameter/ and server/ are outputs). */
export function examplePipelines(): string[] {
  const out: string[] = [];
  for (const group of readdirSync(join(ultraragRoot, "examples"))) {
    const dir = join(ultraragRoot, "examples", group);
    for (const f of readdirSync(dir).sort()) if (f.endsWith(".yaml")) out.push(`examples/${group}/${f}`);
  }
  return out;
}

export function fixtureCatalog(): ServerCatalog {
  const record = parse(readFileSync(join(fixturesDir, "ultrarag-catalog.yaml"), "utf8")) as Record<
    string,
    Record<string, unknown>
  >;
  for (const [path, server] of Object.entries(record)) {
    const file = join(ultraragRoot, path, "parameter.yaml");
    if (existsSync(file))
      server.parameters = (parse(readFileSync(file, "utf8")) as Record<string, unknown> | null) ?? {};
  }
  return catalogFromRecord(record);
}
