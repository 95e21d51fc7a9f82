/**
 * The import job's failure path, against a real database: what a failed import writes to the
 * snapshot row every viewer of the project sees, and what it leaves in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb, type TestConfig } from "../../test/helpers/db.ts";
import { captureLog } from "../../test/helpers/log.ts";
import { ingestError } from "../codebase/ingest/errors.ts";
import type { IngestSummary } from "../codebase/ingest/index.ts";
import type { Db } from "../db/client.ts";
import { createIngestJob } from "./job.ts";

let db: Db;
let t: TestConfig;
let close: () => Promise<void>;
let projectId: string;

beforeAll(async () => {
  ({ db, t, close } = await openMigratedDb());
  const workspace = await db.workspace.create({ data: { name: "w" } });
  projectId = (await db.project.create({ data: { uid: crypto.randomUUID(), workspaceId: workspace.id, name: "p" } }))
    .id;
});
afterAll(() => close());

/** Runs the job on an "uploaded" import whose files are `summary`; returns the failed row and the log. */
async function failingImport(summary: IngestSummary) {
  const captured = captureLog();
  const snapshot = await db.snapshot.create({
    data: { uid: crypto.randomUUID(), projectId, sourceKind: "files", sourceLabel: "upload", status: "queued" },
  });
  const run = createIngestJob({
    db,
    config: t.config,
    log: captured.log,
    authSecret: "x".repeat(32),
    // What the snapshot service's fail() writes (it also removes the files).
    fail: async (id, message) => {
      await db.snapshot.update({ where: { id }, data: { status: "failed", message } });
    },
  });
  await run({ snapshotId: snapshot.id, source: { kind: "uploaded", summary } });
  return { row: await db.snapshot.findUniqueOrThrow({ where: { id: snapshot.id } }), log: captured };
}

const oneFile = { walk: { files: [{ path: "a.ts", language: "TypeScript" }] } } as unknown as IngestSummary;

describe("an import that fails", () => {
  it("unexpectedly (its files vanished): the row says so with a reference, the log names the server path", async () => {
    // Nothing was materialised under src/: indexing fails with ENOENT and the absolute path.
    const { row, log } = await failingImport(oneFile);
    expect(row.status).toBe("failed");
    expect(row.message).toMatch(/^Something went wrong while importing the code\. /);
    const reference = /reference: ([0-9a-f]{8})\.$/.exec(row.message ?? "")?.[1];
    expect(reference).toBeDefined();
    expect(row.message).not.toContain(t.config.dataDir);
    expect(row.message).not.toContain("ENOENT");

    const logged = log.lines().find((l) => l.reference === reference);
    expect(logged).toMatchObject({ level: 50, snapshot: row.uid });
    expect(JSON.stringify(logged)).toContain(t.config.dataDir);
    expect((logged!.err as { stack: string }).stack).toContain("\n    at ");
  });

  it("with a refusal written for users: that message is on the row as it is", async () => {
    const refusal = ingestError("cap_files", "The upload has more than 20000 files. Upload fewer files.");
    const summary = {
      get walk(): never {
        throw refusal;
      },
    } as unknown as IngestSummary;
    const { row, log } = await failingImport(summary);
    expect(row).toMatchObject({ status: "failed", message: refusal.message });
    expect(log.lines().some((l) => l.level === 50)).toBe(false);
  });
});
