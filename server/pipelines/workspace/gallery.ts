/**
 * The built-in gallery: the `pipelines/` folder at the top of the repository (YAML with front
 * matter, parameter files, sample data, prompt templates). Read once per process; a gallery entry is
 * addressed by its file stem (`bm25_search`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { readFrontMatter, type FrontMatter } from "../front-matter.ts";

export const GALLERY_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../pipelines");

/** What a run directory copies from the gallery besides the pipeline itself. */
export const GALLERY_ASSETS = ["data", "prompt"] as const;

export interface GalleryEntry {
  key: string;
  meta: FrontMatter;
  source: string;
  /** The gallery's parameter file for it (alias → values), {} when it has none. */
  parameters: Record<string, unknown>;
}

let cache: GalleryEntry[] | undefined;

export function galleryEntries(dir = GALLERY_DIR): GalleryEntry[] {
  if (dir === GALLERY_DIR && cache) return cache;
  const entries = readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => {
      const key = f.replace(/\.yaml$/, "");
      const source = readFileSync(path.join(dir, f), "utf8");
      const paramFile = path.join(dir, "parameter", `${key}_parameter.yaml`);
      const parameters = existsSync(paramFile)
        ? ((parseYaml(readFileSync(paramFile, "utf8")) as Record<string, unknown> | null) ?? {})
        : {};
      return {
        key,
        meta: readFrontMatter(source) ?? { title: key, description: "", tags: [], needs: "none" },
        source,
        parameters,
      };
    });
  if (dir === GALLERY_DIR) cache = entries;
  return entries;
}

export function galleryEntry(key: string): GalleryEntry | undefined {
  return galleryEntries().find((e) => e.key === key);
}
