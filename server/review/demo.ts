/**
 * The demo project offered on first run: a small service written by us with deliberate flaws
 * (server/review/demo-project/README.md lists them). One call imports it as a new project, waits for
 * the import and starts a review, so a new user presses one button and watches a review — with the
 * static engine when no model is configured.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { requireRole, requireUser, type Actor } from "../auth/access.ts";
import type { Db } from "../db/client.ts";
import { DomainError } from "../errors.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { SnapshotService } from "../snapshots/service.ts";
import type { ReviewService, ReviewView } from "./service.ts";

export const DEMO_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "demo-project");
export const DEMO_PROJECT_NAME = "Demo — Corner Shop inventory";
const IMPORT_WAIT_MS = 120_000;

export const startDemoInput = z.object({
  workspaceId: z.string().min(1),
  engine: z.enum(["static", "agent"]).default("static"),
});

export function createDemoService(deps: {
  db: Db;
  queue: JobQueue;
  snapshots: SnapshotService;
  reviews: ReviewService;
}) {
  const { db } = deps;

  async function waitForImport(snapshotId: string): Promise<void> {
    const deadline = Date.now() + IMPORT_WAIT_MS;
    for (;;) {
      const s = await db.snapshot.findUniqueOrThrow({ where: { id: snapshotId } });
      if (s.status === "ready") return;
      if (s.status === "failed")
        throw new DomainError("invalid", `The demo project could not be imported: ${s.message ?? "unknown error"}`);
      if (Date.now() > deadline)
        throw new DomainError(
          "conflict",
          "The demo import is taking longer than expected (the server is busy). Open the project and start the review when the import is ready.",
        );
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  return {
    async start(
      actor: Actor,
      input: z.infer<typeof startDemoInput>,
    ): Promise<{ projectUid: string; review: ReviewView }> {
      const user = requireUser(actor);
      await requireRole(db, actor, input.workspaceId, "member");
      const project = await db.project.create({
        data: { uid: crypto.randomUUID(), workspaceId: input.workspaceId, name: DEMO_PROJECT_NAME },
      });
      const snapshot = await deps.snapshots.begin(project, user, "path", "Argus demo project");
      await deps.queue.enqueue("snapshot.ingest", {
        snapshotId: snapshot.id,
        source: { kind: "path", path: DEMO_DIR },
      });
      await waitForImport(snapshot.id);
      const review = await deps.reviews.start(actor, {
        projectUid: project.uid,
        engine: input.engine,
        scope: { kind: "project" },
      });
      return { projectUid: project.uid, review };
    },
  };
}

export type DemoService = ReturnType<typeof createDemoService>;
