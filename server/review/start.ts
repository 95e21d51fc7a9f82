/**
 * Starting a review: what it will run with (prompt, provider, model, scope, budget and noise settings)
 * is snapshotted on its row, which is queued for the job (job.ts); and a re-run of an earlier one.
 */
import type { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import { invalid, notFound } from "../errors.ts";
import { ENVIRONMENT_CONNECTION_NAME } from "../providers/service.ts";
import { defaultConnection } from "../providers/workspace-model.ts";
import { startReviewInput } from "./inputs.ts";
import { reviewBudgetSchema, reviewSettingsSchema, type ReviewScope } from "./report/schema.ts";
import { loadReviewFor, publishStatus, type ReviewDeps } from "./rows.ts";
import { reviewView, type ReviewView } from "./views.ts";

/**
 * Resolves what the review will run with, refusing early what could never run. No connection
 * named: the workspace's default (Settings marks it); null: the server's environment default.
 */
async function resolveModel(
  { db, providers }: ReviewDeps,
  workspaceId: string,
  input: z.infer<typeof startReviewInput>,
) {
  if (input.engine === "static") return { provider: null, model: null, connectionUid: null, connectionName: null };
  const connection =
    input.connectionUid === undefined
      ? await defaultConnection(db, workspaceId)
      : input.connectionUid === null
        ? null
        : await db.providerConnection.findUnique({ where: { uid: input.connectionUid } });
  const connectionUid = input.connectionUid === undefined ? (connection?.uid ?? null) : input.connectionUid;
  const resolved = await providers.resolveForJob(workspaceId, connectionUid, input.model);
  return {
    provider: resolved.provider,
    model: resolved.model,
    connectionUid,
    connectionName: connection?.name ?? ENVIRONMENT_CONNECTION_NAME,
  };
}

/** actor null: started by a forge's webhook for a pull request (server/forges checked the installation). */
export async function createReview(
  d: ReviewDeps,
  actor: NonNullable<Actor> | null,
  input: z.infer<typeof startReviewInput>,
  uid: string = crypto.randomUUID(),
  /** A repository's own review instructions (server/forges/guidance.ts), added to the prompt. */
  instructions: string | null = null,
): Promise<ReviewView> {
  const { db } = d;
  const project = await db.project.findUnique({ where: { uid: input.projectUid } });
  if (!project) throw notFound(`No project with id ${input.projectUid}. It may have been deleted.`);
  if (actor) await requireRole(db, actor, project.workspaceId, "member");
  if (!project.currentSnapshotId)
    throw invalid("This project has no imported code yet. Import a folder, a zip or a git repository first.");
  const snapshot = await db.snapshot.findUnique({ where: { id: project.currentSnapshotId } });
  if (snapshot?.status !== "ready")
    throw invalid("The project's code is still being imported; start the review once the import is ready.");

  let [promptName, promptContent] = [null as string | null, null as string | null];
  if (input.engine === "agent") {
    const prompt = input.promptUid
      ? await db.prompt.findUnique({ where: { uid: input.promptUid } })
      : await db.prompt.findFirst({ where: { workspaceId: project.workspaceId, isDefault: true } });
    if (input.promptUid && (!prompt || prompt.workspaceId !== project.workspaceId))
      throw notFound("That review prompt does not exist in this workspace.");
    if (!prompt)
      throw invalid(
        "This workspace has no default review prompt. Pick a prompt, or mark one as the default on the Prompts page.",
      );
    promptName = prompt.name;
    promptContent = instructions ? `${prompt.content}\n\n${instructions}` : prompt.content;
  }
  const { provider, model, connectionUid, connectionName } = await resolveModel(d, project.workspaceId, input);
  const budget = reviewBudgetSchema.parse(input.budget ?? {});
  const settings = reviewSettingsSchema.parse(input.settings ?? {});

  const review = await db.review.create({
    data: {
      uid,
      workspaceId: project.workspaceId,
      projectId: project.id,
      snapshotId: snapshot.id,
      createdById: actor?.userId ?? null,
      engine: input.engine,
      status: "queued",
      scope: JSON.stringify(input.scope),
      promptName,
      promptContent,
      provider,
      model,
      connectionUid,
      connectionName,
      budget: JSON.stringify(budget),
      settings: JSON.stringify(settings),
    },
    include: { project: { select: { uid: true, name: true } } },
  });
  await publishStatus(d.events, review);
  await d.queue.enqueue("review", { reviewId: review.id });
  return reviewView(db, review);
}

/** The same review again, with what the earlier one ran with (its prompt text, even if since edited). */
export async function rerunReview(d: ReviewDeps, actor: Actor, uid: string): Promise<ReviewView> {
  const r = await loadReviewFor(d.db, actor, uid, "member");
  const scope = JSON.parse(r.scope) as ReviewScope;
  const input = startReviewInput.parse({
    projectUid: r.project.uid,
    engine: r.engine,
    scope,
    connectionUid: r.connectionUid,
    model: r.model ?? undefined,
    budget: JSON.parse(r.budget),
    settings: JSON.parse(r.settings),
  });
  const created = await createReview(d, actor!, input);
  // Keep the original prompt text even if the prompt was edited or deleted since.
  if (r.engine === "agent")
    await d.db.review.update({
      where: { uid: created.uid },
      data: { promptName: r.promptName, promptContent: r.promptContent },
    });
  return { ...created, promptName: r.promptName };
}
