/**
 * The forge layer's services: the GitHub App (from the environment), the webhook intake, the two jobs
 * (a PR's import + review start, and the publishing of its result), and the owners' connection of an
 * installation to their workspace. Every forge request goes through the `fetch` handed in.
 */
import { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { Db, Project } from "../db/client.ts";
import { isUniqueViolation } from "../db/client.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { Logger } from "../logger.ts";
import type { IngestJob } from "../snapshots/job.ts";
import { gitHubForge } from "./github/forge.ts";
import { createGitHubIntake, type Delivery, type IntakeAnswer, type PullJob } from "./github/intake.ts";
import { createPublishJob, type PublishJob } from "./publish.ts";
import { createPullJob, type PullJobDeps } from "./pull-job.ts";
import { createMentions, type AnswerJob } from "./mentions.ts";
import { createFeedback, type FeedbackDeps, type VerdictJob } from "./feedback.ts";
import type { ForgeQuestion } from "../ask/service.ts";
import type { CommentJob } from "./github/intake.ts";
import type { Forge } from "./types.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import { createForgeApps } from "./workspace-apps.ts";
import { severitySchema } from "../shared/findings.ts";

export const connectInstallationInput = z.object({
  workspaceId: z.string().min(1),
  forge: z.literal("github"),
  installationId: z.coerce
    .number({ error: "The installation id is a number (GitHub → the App → Install → the URL's last part)." })
    .int()
    .positive(),
});

export const disconnectInstallationInput = connectInstallationInput;
export const repoModeInput = z.object({
  projectUid: z.uuid(),
  mode: z.enum(["auto", "on_request", "off"]),
  /** The severity that fails the Argus check (`.argus.yaml` fail_on wins); null: never; omitted: unchanged. */
  failOn: severitySchema.nullable().optional(),
});

/** What Settings → Integrations shows: never a token or key (the App's live in the environment). */
export interface InstallationView {
  forge: "github";
  installationId: number;
  account: string | null;
  createdAt: Date;
  repos: { fullName: string; projectUid: string; mode: string; failOn: string | null }[];
}

/** A review's pull request, for its room page. */
export interface PullView {
  repo: string;
  number: number;
  title: string;
  url: string;
  headRef: string;
  headSha: string;
  state: string;
  /** This review's findings posted inline on the PR, each with its comment's link. */
  findings: { fingerprint: string; path: string; line: number; url: string }[];
}

export interface ForgeServiceDeps {
  db: Db;
  config: Config;
  log: Logger;
  queue: JobQueue;
  fetch: typeof globalThis.fetch;
  /** Seals a workspace's own GitHub App (purpose "forge-app"). */
  box: SecretBox;
  beginSnapshot: (project: Project, label: string) => Promise<{ id: string; uid: string }>;
  runIngest: (job: IngestJob) => Promise<void>;
  failSnapshot: (snapshotId: string, message: string) => Promise<void>;
  startReview: PullJobDeps["startReview"];
  /** Ask Argus (server/ask): a PR's `@argus` question. */
  ask: (question: ForgeQuestion) => Promise<{ answerUid: string }>;
  /** A PR reply or reaction in a finding's thread, and its vote (feedback.ts). */
  say: FeedbackDeps["say"];
  vote: FeedbackDeps["vote"];
}

export function createForgeService(deps: ForgeServiceDeps) {
  const { db, config, log, queue } = deps;
  const apps = createForgeApps({ db, config, log, fetch: deps.fetch, box: deps.box });

  async function forgeFor(installationId: string): Promise<Forge> {
    const installation = await db.forgeInstallation.findUniqueOrThrow({ where: { id: installationId } });
    const github = installation.forge === "github" ? await apps.forWorkspace(installation.workspaceId) : undefined;
    if (!github)
      throw invalid(
        "This installation's forge is not configured on this Argus (GITHUB_APP_ID …, or Settings → Integrations).",
      );
    return gitHubForge(await github.installation(Number(installation.externalId)));
  }

  const intake = createGitHubIntake({
    db,
    log,
    configured: apps.any,
    verify: apps.verify,
    enqueue: (job) => queue.enqueue("forge.pull", job),
    enqueueComment: (job) => queue.enqueue("forge.comment", job),
  });

  const pullJob = createPullJob({
    db,
    config,
    log,
    forgeFor,
    beginSnapshot: deps.beginSnapshot,
    runIngest: deps.runIngest,
    failSnapshot: deps.failSnapshot,
    startReview: deps.startReview,
  });
  const publishJob = createPublishJob({ db, config, log, forgeFor });
  const feedback = createFeedback({ db, config, log, forgeFor, say: deps.say, vote: deps.vote });
  /** Reactions are read whenever a PR's job runs (GitHub sends no webhook for them). */
  async function pollReactions(installationId: string, repoId: number, number: number): Promise<void> {
    const pull = await db.forgePull.findFirst({
      where: { number, repo: { installationId, externalId: String(repoId) } },
      select: { id: true },
    });
    if (pull)
      await feedback
        .pollReactions(pull.id)
        .catch((err: unknown) => log.warn({ err, number }, "reading a pull request's reactions failed"));
  }
  const mentions = createMentions({
    db,
    config,
    log,
    forgeFor,
    runPull: pullJob,
    importHead: pullJob.importHead,
    ask: deps.ask,
    enqueueAnswer: (job) => queue.enqueue("forge.answer", job),
    onReply: (job) => feedback.reply(job),
  });

  return {
    /** The forge's job kinds as the composition root registers them (server/jobs/kinds.ts). */
    jobs: {
      "forge.pull": {
        handler: async (job: PullJob) => {
          await pollReactions(job.installationId, job.repo.id, job.number);
          await pullJob(job);
        },
        options: { concurrency: 1 },
      },
      "forge.publish": { handler: (job: PublishJob) => publishJob(job), options: { concurrency: 2 } },
      "forge.comment": {
        handler: async (job: CommentJob) => {
          await pollReactions(job.installationId, job.repo.id, job.number);
          await mentions.commentJob(job);
        },
        options: { concurrency: 1 },
      },
      "forge.answer": { handler: (job: AnswerJob) => mentions.answerJob(job), options: { concurrency: 2 } },
      "forge.verdict": { handler: (job: VerdictJob) => feedback.verdictJob(job), options: { concurrency: 1 } },
    },
    /** An Ask Argus answer ended (server/ask's runner): a PR's `@argus` question gets its reply. */
    /** A member voted on a finding in its room: when the finding is on a PR, the PR hears the verdict. */
    verdictChanged(reviewUid: string, fingerprint: string): void {
      db.forgeComment
        .findFirst({ where: { fingerprint, pull: { repo: { project: { reviews: { some: { uid: reviewUid } } } } } } })
        .then((posted) => (posted ? queue.enqueue("forge.verdict", { reviewUid, fingerprint }) : undefined))
        .catch((err: unknown) => log.error({ err }, "handing a verdict to its pull request failed"));
    },
    answerEnded: (answerUid: string) =>
      mentions
        .answerEnded(answerUid)
        .catch((err: unknown) => log.error({ err }, "replying to an @argus question failed")),
    receiveGitHub: (delivery: Delivery): Promise<IntakeAnswer> => intake(delivery),

    /** A review ended: when it is a pull request's, its result goes back to the PR (a job). */
    async reviewEnded(reviewUid: string): Promise<void> {
      const pull = await db.forgePull.findFirst({ where: { lastReviewUid: reviewUid }, select: { id: true } });
      if (pull) await queue.enqueue("forge.publish", { reviewUid });
    },

    /** Whether this Argus has a GitHub App from its environment (Settings says what to set when not). */
    githubConfigured: () => apps.env !== undefined,
    /** The workspace's GitHub App as Settings shows it; owners save or remove their own (sealed). */
    app: apps.view,
    saveApp: apps.save,
    removeApp: apps.remove,

    async installations(actor: Actor, workspaceId: string): Promise<InstallationView[]> {
      await requireRole(db, actor, workspaceId, "owner");
      const rows = await db.forgeInstallation.findMany({
        where: { workspaceId },
        include: { repos: { include: { project: { select: { uid: true } } }, orderBy: { fullName: "asc" } } },
        orderBy: { createdAt: "asc" },
      });
      return rows.map((r) => ({
        forge: "github",
        installationId: Number(r.externalId),
        account: r.account,
        createdAt: r.createdAt,
        repos: r.repos.map((repo) => ({
          fullName: repo.fullName,
          projectUid: repo.project.uid,
          mode: repo.mode,
          failOn: repo.failOn,
        })),
      }));
    },

    async disconnectInstallation(actor: Actor, input: z.infer<typeof disconnectInstallationInput>): Promise<void> {
      await requireRole(db, actor, input.workspaceId, "owner");
      const { count } = await db.forgeInstallation.deleteMany({
        where: { workspaceId: input.workspaceId, forge: input.forge, externalId: String(input.installationId) },
      });
      if (!count) throw notFound(`Installation ${input.installationId} is not connected to this workspace.`);
    },

    /** Which pull requests of a linked repository are reviewed: every one, on request, or none. */
    async setRepoMode(actor: Actor, input: z.infer<typeof repoModeInput>): Promise<void> {
      const project = await db.project.findUnique({ where: { uid: input.projectUid }, include: { forgeRepo: true } });
      if (!project) throw notFound(`No project with id ${input.projectUid}. It may have been deleted.`);
      await requireRole(db, actor, project.workspaceId, "owner");
      if (!project.forgeRepo) throw invalid("That project is not linked to a repository on a forge.");
      await db.forgeRepo.update({
        where: { id: project.forgeRepo.id },
        data: { mode: input.mode, ...(input.failOn !== undefined ? { failOn: input.failOn } : {}) },
      });
    },

    /** The pull request a review was started for (its room shows the PR), or null. */
    async pullOfReview(actor: Actor, reviewUid: string): Promise<PullView | null> {
      const review = await db.review.findUnique({ where: { uid: reviewUid }, select: { workspaceId: true } });
      if (!review) throw notFound(`No review with id ${reviewUid}. It may have been deleted.`);
      await requireRole(db, actor, review.workspaceId, "viewer");
      const posted = await db.forgeComment.findFirst({ where: { reviewUid }, select: { pullId: true } });
      const pull = await db.forgePull.findFirst({
        where: posted ? { id: posted.pullId } : { lastReviewUid: reviewUid },
        include: { repo: true, comments: { where: { reviewUid }, orderBy: [{ path: "asc" }, { line: "asc" }] } },
      });
      if (!pull) return null;
      return {
        repo: pull.repo.fullName,
        number: pull.number,
        title: pull.title,
        url: pull.url,
        headRef: pull.headRef,
        headSha: pull.headSha,
        state: pull.state,
        findings: pull.comments.map((c) => ({
          fingerprint: c.fingerprint,
          path: c.path,
          line: c.line,
          url: `${pull.url}#discussion_r${c.commentId}`,
        })),
      };
    },

    /** An owner connects a GitHub App installation to their workspace (its deliveries are then taken). */
    async connectInstallation(actor: Actor, input: z.infer<typeof connectInstallationInput>) {
      await requireRole(db, actor, input.workspaceId, "owner");
      try {
        const row = await db.forgeInstallation.create({
          data: { workspaceId: input.workspaceId, forge: input.forge, externalId: String(input.installationId) },
        });
        return { forge: row.forge, installationId: Number(row.externalId), createdAt: row.createdAt };
      } catch (err) {
        if (isUniqueViolation(err))
          throw conflict(`Installation ${input.installationId} is already connected to a workspace of this Argus.`);
        throw err;
      }
    },
  };
}
export type ForgeService = ReturnType<typeof createForgeService>;
