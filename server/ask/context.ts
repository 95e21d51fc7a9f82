/**
 * What an answer needs before its first model request, read in one query per way of asking: the
 * project (or review, or thread), the asker's role in its workspace, the workspace's chat budget
 * limits and the model connection its answers use (the workspace's default, as Settings lists it first). The
 * snapshot a thread answers over is read once per snapshot: a ready snapshot's uid never changes.
 */
import type { Db, Project, ProviderConnection, Review, ReviewFinding } from "../db/client.ts";
import { invalid, notFound } from "../errors.ts";
import type { AskBudget } from "../shared/ask.ts";
import { connectionOrder } from "../providers/service.ts";
import { threadInclude, type ThreadRow } from "./views.ts";

/** The workspace side of asking: the asker's role (null: not a member), the budget's limits, the model. */
export interface AskWorkspace {
  role: string | null;
  limits: AskBudget;
  connection: ProviderConnection | null;
}

const workspaceSelect = (userId: string) => ({
  select: {
    askBudget: { select: { maxTokens: true, maxCostUsd: true } },
    providers: { orderBy: connectionOrder, take: 1 },
    memberships: { where: { userId }, select: { role: true }, take: 1 },
  },
});

type WorkspaceRow = {
  askBudget: AskBudget | null;
  providers: ProviderConnection[];
  memberships: { role: string }[];
};

const workspaceOf = (w: WorkspaceRow): AskWorkspace => ({
  role: w.memberships[0]?.role ?? null,
  limits: { maxTokens: w.askBudget?.maxTokens ?? null, maxCostUsd: w.askBudget?.maxCostUsd ?? null },
  connection: w.providers[0] ?? null,
});

export async function projectForAsk(
  db: Db,
  projectUid: string,
  userId: string,
): Promise<{ project: Project; ws: AskWorkspace } | null> {
  const row = await db.project.findUnique({
    where: { uid: projectUid },
    include: { workspace: workspaceSelect(userId) },
  });
  if (!row) return null;
  const { workspace, ...project } = row;
  return { project, ws: workspaceOf(workspace) };
}

export async function reviewForAsk(
  db: Db,
  reviewUid: string,
  userId: string,
  fingerprint: string | undefined,
): Promise<{ review: Review; project: Project; finding: ReviewFinding | null; ws: AskWorkspace } | null> {
  const row = await db.review.findUnique({
    where: { uid: reviewUid },
    include: {
      project: true,
      workspace: workspaceSelect(userId),
      findings: { where: { fingerprint: fingerprint ?? "" }, take: 1 },
    },
  });
  if (!row) return null;
  const { workspace, project, findings, ...review } = row;
  return { review, project, finding: fingerprint ? (findings[0] ?? null) : null, ws: workspaceOf(workspace) };
}

export async function threadForAsk(
  db: Db,
  threadUid: string,
  userId: string,
): Promise<{ thread: ThreadRow; ws: AskWorkspace } | null> {
  const row = await db.askThread.findUnique({
    where: { uid: threadUid },
    include: {
      ...threadInclude,
      project: { select: { uid: true, workspace: workspaceSelect(userId) } },
    },
  });
  if (!row) return null;
  const { project, ...rest } = row;
  const thread: ThreadRow = { ...rest, project: { uid: project.uid } };
  return { thread, ws: workspaceOf(project.workspace) };
}

/** Ready snapshots' uids by id (a bounded cache: a ready snapshot's uid never changes). */
export function createSnapshotCache(db: Db, max = 1000) {
  const ready = new Map<string, string>();
  return {
    /** The uid of the snapshot a thread will answer over; refused when it is not (or no longer) imported. */
    async readyUid(snapshotId: string): Promise<string> {
      const known = ready.get(snapshotId);
      if (known) return known;
      const s = await db.snapshot.findUnique({ where: { id: snapshotId }, select: { uid: true, status: true } });
      if (!s || s.status !== "ready")
        throw invalid("The code this would be asked about is not imported (or its import failed); import it again.");
      if (ready.size >= max) ready.delete(ready.keys().next().value!);
      ready.set(snapshotId, s.uid);
      return s.uid;
    },
  };
}

/** askInput.connectionUid's value for the server's environment default. */
export const ENVIRONMENT_CONNECTION = "environment";

/**
 * The connection an asker picked: that connection of the workspace (another workspace's is refused
 * as unknown), or null for the server's environment default.
 */
export async function pickedConnection(
  db: Db,
  workspaceId: string,
  picked: string,
): Promise<ProviderConnection | null> {
  if (picked === ENVIRONMENT_CONNECTION) return null;
  const c = await db.providerConnection.findUnique({ where: { uid: picked } });
  if (!c || c.workspaceId !== workspaceId)
    throw notFound("That model connection does not exist in this workspace. Pick another, or reload the page.");
  return c;
}

/** A queued answer as the runner starts it: its row, its thread, and the workspace's limits and model. */
export async function answerForRun(db: Db, answerId: string) {
  const { thread, ...answer } = await db.askMessage.findUniqueOrThrow({
    where: { id: answerId },
    include: {
      thread: {
        include: {
          ...threadInclude,
          project: {
            select: {
              uid: true,
              workspace: {
                select: {
                  askBudget: { select: { maxTokens: true, maxCostUsd: true } },
                  providers: { orderBy: connectionOrder, take: 1 },
                },
              },
            },
          },
        },
      },
    },
  });
  const { project, ...rest } = thread;
  const w = project.workspace;
  // A connection the asker picked stands in for the default (gone meanwhile: the default answers).
  const picked = answer.connectionUid
    ? await pickedConnection(db, rest.workspaceId, answer.connectionUid).catch(() => undefined)
    : undefined;
  return {
    answer,
    thread: { ...rest, project: { uid: project.uid } } as ThreadRow,
    limits: { maxTokens: w.askBudget?.maxTokens ?? null, maxCostUsd: w.askBudget?.maxCostUsd ?? null },
    connection: picked !== undefined ? picked : (w.providers[0] ?? null),
  };
}
