/**
 * The forge layer's services: the GitHub App (from the environment), the webhook intake, the two jobs
 * (a PR's import + review start, and the publishing of its result), and the owners' connection of an
 * installation to their workspace. Every forge request goes through the `fetch` handed in.
 */
import { resolveAuthSecret } from "../auth/secret.ts";
import { requireRole, type Actor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { invalid } from "../errors.ts";
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
import type { z } from "zod";
import type { Forge } from "./types.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import { createForgeApps } from "./workspace-apps.ts";
import { createIntegrations } from "./integrations.ts";
import { createGitLabConnections, type connectGitLabInput, type disconnectGitLabInput } from "./gitlab/connection.ts";
import { createGitLabIntake, type GitLabDelivery } from "./gitlab/intake.ts";

export {
  connectInstallationInput,
  disconnectInstallationInput,
  repoModeInput,
  type InstallationView,
  type PullView,
} from "./integrations.ts";

export interface ForgeServiceDeps {
  db: Db;
  config: Config;
  log: Logger;
  queue: JobQueue;
  fetch: typeof globalThis.fetch;
  /** Seals a workspace's own GitHub App (purpose "forge-app"). */
  box: SecretBox;
  beginSnapshot: PullJobDeps["beginSnapshot"];
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
  const gitlab = createGitLabConnections({
    db,
    log,
    url: config.forges.gitlabUrl,
    // Seals GitLab connections' tokens and webhook secrets (server/lib/secret-box.ts).
    authSecret: resolveAuthSecret(config),
    fetch: deps.fetch,
  });

  async function forgeFor(installationId: string): Promise<Forge> {
    const installation = await db.forgeInstallation.findUniqueOrThrow({ where: { id: installationId } });
    if (installation.forge === "gitlab") return gitlab.forgeFor(installation.id);
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

  const gitlabIntake = createGitLabIntake({
    db,
    log,
    bySecret: gitlab.bySecret,
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
  /** Reactions are read whenever a PR's job runs (GitHub sends no webhook for them); a pull_request job's throttled. */
  async function pollReactions(installationId: string, repoId: number, number: number, throttled = false) {
    const pull = await db.forgePull.findFirst({
      where: { number, repo: { installationId, externalId: String(repoId) } },
      select: { id: true },
    });
    if (pull)
      await (throttled ? feedback.pollReactionsThrottled(pull.id) : feedback.pollReactions(pull.id)).catch(
        (err: unknown) => log.warn({ err, number }, "reading a pull request's reactions failed"),
      );
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
          await pollReactions(job.installationId, job.repo.id, job.number, true);
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
    receiveGitLab: (delivery: GitLabDelivery): Promise<IntakeAnswer> => gitlabIntake(delivery),

    /** GitLab connections (owners): a project or group, its access token and webhook secret, sealed. */
    connectGitLab: (actor: Actor, input: z.infer<typeof connectGitLabInput>) => gitlab.connect(actor, input),
    disconnectGitLab: (actor: Actor, input: z.infer<typeof disconnectGitLabInput>) => gitlab.disconnect(actor, input),
    gitlabConnections: (actor: Actor, workspaceId: string) => gitlab.list(actor, workspaceId),
    /**
     * What Settings → Integrations tells a member about GitLab: the GitLab this Argus talks to
     * (GITLAB_URL) and the webhook URL to paste into it (null without PUBLIC_URL: the page uses its own origin).
     */
    async gitlabSetup(actor: Actor, workspaceId: string) {
      await requireRole(db, actor, workspaceId, "member");
      return {
        gitlabUrl: config.forges.gitlabUrl,
        webhookUrl: config.publicUrl ? `${config.publicUrl}/api/forges/gitlab/webhook` : null,
      };
    },

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

    ...createIntegrations(db),
  };
}
export type ForgeService = ReturnType<typeof createForgeService>;
