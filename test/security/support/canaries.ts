/**
 * Canaries: random strings planted where no response may ever reach (a provider API key, a git token,
 * a file outside the snapshot, an ignored file inside it) plus the tag every name and text of the
 * victim workspace carries. A leak is then a plain substring search over whatever came back.
 */
import { randomBytes } from "node:crypto";
import { expect } from "vitest";

const hex = (n = 8) => randomBytes(n).toString("hex");

export interface Canaries {
  /** Appears in every name and text of workspace A (projects, prompts, bases, files, findings). */
  tagA: string;
  /** The API key of A's provider connection. */
  providerKey: string;
  /** The git access token stored for A's project. */
  gitToken: string;
  /** Content of a file outside the snapshot (in DATA_DIR and in the temp folder). */
  outside: string;
  /** Name of a file outside the snapshot (list_dir of an outside folder would show it). */
  outsideName: string;
  /** Content of ignored files planted inside the snapshot (.env, node_modules, .git, gitignored). */
  ignored: string;
}

export function makeCanaries(): Canaries {
  return {
    tagA: `ALPHA${hex(6)}`,
    // Shaped like real keys, so a redaction rule that only knows key shapes would also be exercised.
    providerKey: `sk-ant-api03-CANARY${hex(12)}`,
    gitToken: `ghp_CANARY${hex(12)}`,
    outside: `OUTSIDE-CANARY-${hex(8)}`,
    outsideName: `outside-name-${hex(6)}.txt`,
    ignored: `IGNORED-CANARY-${hex(8)}`,
  };
}

/** Strings a file outside the snapshot could leak through even without our canary in it. */
export const HOST_FILE_MARKERS = ["root:x:0:0", "BEGIN OPENSSH PRIVATE KEY", "BEGIN RSA PRIVATE KEY"];

/** The canaries that must never reach a response, whoever asks. */
export function secretsOf(c: Canaries): string[] {
  return [c.providerKey, c.gitToken, c.outside, c.outsideName, c.ignored, ...HOST_FILE_MARKERS];
}

/** JSON-stringifies (when needed) and lists every needle found in the haystack. */
export function findLeaks(haystack: unknown, needles: readonly string[]): string[] {
  const text = typeof haystack === "string" ? haystack : JSON.stringify(haystack ?? null);
  return needles.filter((n) => n.length > 0 && text.includes(n));
}

export function expectNoLeak(haystack: unknown, needles: readonly string[], what: string): void {
  expect(findLeaks(haystack, needles), `${what} leaked`).toEqual([]);
}
