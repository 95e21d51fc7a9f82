import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexSnapshot } from "../retrieval/index-snapshot.ts";
import { search } from "../retrieval/search.ts";
import { connect, openChunkIndex, type ChunkIndex, type Store } from "../retrieval/store/index.ts";
import type { ToolContext } from "../agent/index.ts";
import { searchAnswer } from "./search-answer.ts";

const FILES: Record<string, string> = {
  "src/auth/passwords.ts": `import bcrypt from "bcryptjs";

/** Hashes a password with a per-user salt before it is stored. */
export async function hashPassword(plain: string): Promise<string> {
  return bcrypt.hash(plain, 12);
}
`,
  "src/http/session.ts": `/** The session cookie: signed, http only, a day long. */
export const sessionCookieOptions = { httpOnly: true, signed: true, maxAge: 86_400_000 };
`,
  "src/util/retry.ts": `export function retryWithBackoff(attempt: number): number {
  return Math.min(30_000, 2 ** attempt * 100);
}
`,
};

let dir: string;
let store: Store;
let index: ChunkIndex;
let searchCode: NonNullable<ToolContext["searchCode"]>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "argus-search-answer-"));
  const root = path.join(dir, "src-root");
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  store = await connect(path.join(dir, "lancedb"));
  const files = Object.keys(FILES).map((p) => ({ path: p, language: "typescript" }));
  await indexSnapshot(store, "snap", root, files);
  index = (await openChunkIndex(store, "snap"))!;
  searchCode = async (query, opts) =>
    (await search(index, query, { mode: opts.mode, k: opts.k })).map((h) => ({
      ...h,
      symbolPath: h.symbolPath ?? undefined,
    }));
});

afterAll(() => {
  index?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("Ask's answer without a model", () => {
  it("lists the hits with their match label, the one that answers first and strong", async () => {
    const { text, hits } = await searchAnswer("Where are passwords hashed?", searchCode);
    expect(hits[0]).toMatchObject({ file: "src/auth/passwords.ts", match: "strong" });
    expect(text).toContain("- src/auth/passwords.ts:1-6 (strong match)");
    expect(text).toContain("- src/util/retry.ts:1-3 — `retryWithBackoff` (weak match)");
    expect(text).not.toContain("No good match");
  });

  it("says there is no good match when nothing answers, and still shows the nearest hits marked weak", async () => {
    const { text, hits } = await searchAnswer("What is the best pizza dough recipe?", searchCode);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.match === "weak")).toBe(true);
    expect(text).toContain("**No good match** in the code for this question.");
    expect(text).toMatch(/\(weak match\)$/m);
  });
});
