/**
 * The keyword baseline: what a developer gets from ripgrep alone. The query's words (lower-cased,
 * ≥ 3 letters, minus English stop words) are searched case-insensitively as plain substrings (so
 * `config` matches `parseConfig`), and files are ranked by how many distinct query words they
 * contain, then by total matches, then by name.
 */
import { spawnSync } from "node:child_process";
import { rgPath } from "@vscode/ripgrep";

const STOP = new Set(
  "the and for are but not you all any can her was one our out has had his how its may new now old see two who did get let put say she too use that this with from they will have been were which when where what there their than then them these those into only also some such each more most other over under about after before while whether given given".split(
    " ",
  ),
);

export function queryWords(query: string): string[] {
  return [...new Set((query.toLowerCase().match(/\p{L}+/gu) ?? []).filter((w) => w.length >= 3 && !STOP.has(w)))];
}

/** Files under `dir` (relative paths) ranked for `query`, best first, at most `k`. */
export function ripgrepRank(dir: string, query: string, k: number): string[] {
  const words = queryWords(query);
  if (!words.length) return [];
  const r = spawnSync(
    rgPath,
    [
      "-i",
      "-o",
      "-F",
      "--no-heading",
      "--with-filename",
      "--no-line-number",
      "--no-config",
      ...words.flatMap((w) => ["-e", w]),
      ".",
    ],
    { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  // rg exits 1 when nothing matched; 2 is a real error.
  if (r.status === 2 || r.error) throw new Error(`ripgrep failed: ${r.error?.message ?? r.stderr}`);
  const perFile = new Map<string, { words: Set<string>; total: number }>();
  for (const line of r.stdout.split("\n")) {
    const at = line.lastIndexOf(":");
    if (at <= 0) continue;
    const file = line.slice(0, at).replace(/^\.\//, "");
    const f = perFile.get(file) ?? { words: new Set<string>(), total: 0 };
    f.words.add(line.slice(at + 1).toLowerCase());
    f.total++;
    perFile.set(file, f);
  }
  return [...perFile]
    .sort(([a, x], [b, y]) => y.words.size - x.words.size || y.total - x.total || (a < b ? -1 : 1))
    .slice(0, k)
    .map(([file]) => file);
}
