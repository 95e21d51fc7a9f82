/**
 * What the agent is told about a repository beyond the workspace's review prompt: the `instructions`
 * of `.argus.yaml` and the repository's own guidance files for coding agents and reviewers —
 * `AGENTS.md`, `CLAUDE.md`, `.github/copilot-instructions.md`, `.cursor/BUGBOT.md` — read from the
 * PR's head. The files are the repository's, so hostile: regular files inside the tree only, each
 * cut at MAX_FILE_BYTES and all together at MAX_INSTRUCTIONS_BYTES, and given to the agent as the
 * repository's guidance, under the workspace's prompt (they add to it, never replace it).
 */
import { lstat, readFile } from "node:fs/promises";
import path from "node:path";

export const GUIDANCE_FILES = ["AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", ".cursor/BUGBOT.md"];
export const MAX_FILE_BYTES = 8 * 1024;
export const MAX_INSTRUCTIONS_BYTES = 24 * 1024;

function cut(text: string, bytes: number): { text: string; cut: boolean } {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= bytes) return { text, cut: false };
  return {
    text: buf
      .subarray(0, bytes)
      .toString("utf8")
      .replace(/\uFFFD+$/, ""),
    cut: true,
  };
}

/** The review instructions for a tree (null when there are none), and which files they came from. */
export async function reviewInstructions(
  srcDir: string,
  fromRules: string | null,
): Promise<{ text: string | null; sources: string[] }> {
  const parts: string[] = [];
  const sources: string[] = [];
  if (fromRules?.trim()) {
    parts.push(`### .argus.yaml instructions\n\n${cut(fromRules.trim(), MAX_FILE_BYTES).text}`);
    sources.push(".argus.yaml");
  }
  for (const name of GUIDANCE_FILES) {
    const file = path.join(srcDir, name);
    const info = await lstat(file).catch(() => null);
    if (!info?.isFile()) continue; // a symlink could point outside the tree
    const raw = await readFile(file, "utf8").catch(() => "");
    if (!raw.trim()) continue;
    const { text, cut: wasCut } = cut(raw.trim(), MAX_FILE_BYTES);
    parts.push(`### ${name}${wasCut ? ` (first ${MAX_FILE_BYTES / 1024} KB)` : ""}\n\n${text}`);
    sources.push(name);
  }
  if (!parts.length) return { text: null, sources };
  const all = cut(
    "## The repository's own guidance (follow it where it does not contradict the instructions above)\n\n" +
      parts.join("\n\n"),
    MAX_INSTRUCTIONS_BYTES,
  );
  return { text: all.text, sources };
}
