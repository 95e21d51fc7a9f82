/**
 * Builds the service graph once per process and hands it out. Next.js route code gets its own copy
 * of modules, so the graph lives on globalThis (STACK.md).
 */
import { createOutboundPolicy, type OutboundPolicy } from "./net/outbound.ts";
import { mkdirSync } from "node:fs";
import { createAuth, type Auth } from "./auth/auth.ts";
import { resolveAuthSecret } from "./auth/secret.ts";
import { createSecretBox } from "./lib/secret-box.ts";
import { createSetupToken, type SetupToken } from "./auth/setup-token.ts";
import { getConfig, type Config } from "./config.ts";
import { createDb, type Db } from "./db/client.ts";
import { createLogger, type Logger } from "./logger.ts";
import { createProjectService } from "./projects/service.ts";
import { createPromptService } from "./prompts/service.ts";
import { createDraftEndings, type DraftEndings } from "./coedit/endings.ts";
import { createProviderService, type ProviderService } from "./providers/service.ts";
import { createWorkspaceService } from "./workspaces/service.ts";
import { createMembershipChanges } from "./workspaces/membership-changes.ts";
import { createInProcessQueue, type JobQueue } from "./jobs/queue.ts";
import { registerJobs } from "./jobs/registry.ts";
import { createBullQueue } from "./jobs/bullmq.ts";
import { openRedis, type RedisLink } from "./cluster/redis.ts";
import { createLocalSignals, createRedisSignals, type Signals } from "./cluster/signals.ts";
import { redisRateLimitStore } from "./cluster/rate-limit-store.ts";
import type { RateLimitStore } from "./lib/rate-limit.ts";
import { createIngestJob } from "./snapshots/job.ts";
import { createSnapshotService, type SnapshotService } from "./snapshots/service.ts";
import { dropProjectStorage, searchStoreUri } from "./snapshots/storage.ts";
import { createIndexCache } from "./retrieval/store/index.ts";
import { createEventBus, type EventBus } from "./events/bus.ts";
import { createKnowledgeService, type KnowledgeService } from "./knowledge/service.ts";
import {
  createDemoService,
  createFindingTeam,
  createReviewJob,
  createReviewService,
  createSteering,
  type DemoService,
  type FindingTeam,
  type ReviewService,
  type Steering,
} from "./review/index.ts";
import { createRoomChat, type RoomChat } from "./rooms/chat.ts";
import { createPreferences, type UserPreferences } from "./rooms/preferences.ts";
import { createRoomReactions, type RoomReactions } from "./rooms/reactions.ts";
import { createAskService, type AskService } from "./ask/service.ts";
import { createNotifications, type Notifications } from "./notifications/service.ts";
import { createShareService, type ShareService } from "./shares/service.ts";
import { createSpectatorReads, type SpectatorReads } from "./shares/spectator-reads.ts";
import { createPipelineChatService, type PipelineChatService } from "./pipelines/chat/service.ts";
import { createPipelineService, type PipelineService } from "./pipelines/workspace/service.ts";
import { createPipelineAssistant, type PipelineAssistant } from "./pipelines/assistant/service.ts";
import { workspaceChatModel, workspaceRunModel } from "./providers/workspace-model.ts";
import { createForgeService, type ForgeService } from "./forges/service.ts";

export interface Services {
  config: Config;
  log: Logger;
  db: Db;
  auth: Auth;
  /** The one-time setup link's token (first owner); printed by server/main.ts while there is no owner. */
  setup: SetupToken;
  workspaces: ReturnType<typeof createWorkspaceService>;
  projects: ReturnType<typeof createProjectService>;
  prompts: ReturnType<typeof createPromptService>;
  /** A pipeline or prompt was deleted: its shared draft ends (server/coedit, server/realtime). */
  draftEndings: DraftEndings;
  providers: ReturnType<typeof createProviderService>;
  /** The outbound policy (server/net/outbound.ts): check and fetch every URL a user chose through it. */
  outbound: OutboundPolicy;
  snapshots: ReturnType<typeof createSnapshotService>;
  queue: JobQueue;
  /** Redis (REDIS_URL), or undefined in the embedded default. */
  redis: RedisLink | undefined;
  /** Nudges to every process of the install (cancel a job, steering changed). */
  signals: Signals;
  /** Rate-limit counts shared by every node (Redis); undefined: each limiter counts in this process. */
  rateLimits: RateLimitStore | undefined;
  events: EventBus;
  knowledge: KnowledgeService;
  reviews: ReviewService;
  roomChat: RoomChat;
  roomReactions: RoomReactions;
  /** A user's own choices about what rooms share of them (hide my position). */
  preferences: UserPreferences;
  findingTeam: FindingTeam;
  steering: Steering;
  ask: AskService;
  notifications: Notifications;
  /** Share links of reviews, and what their spectators read. */
  shares: ShareService;
  spectators: SpectatorReads;
  demo: DemoService;
  /** The gallery, workspace pipelines with their versions, and runs started from the browser. */
  pipelines: PipelineService;
  /** Chat sessions with a pipeline that answers questions. */
  pipelineChat: PipelineChatService;
  /** The pipeline builder's assistant: proposes validated YAML / parameter changes. */
  pipelineAssistant: PipelineAssistant;
  /** Pull requests on GitHub: the webhook intake, their reviews, the results written back. */
  forges: ForgeService;
  close(): Promise<void>;
}

export async function createServices(config: Config, log = createLogger(config.log)): Promise<Services> {
  mkdirSync(config.dataDir, { recursive: true });
  // Redis first: when REDIS_URL names nothing that answers, start-up stops before opening anything else.
  const redis = config.redis ? await openRedis(config.redis, log) : undefined;
  const db = await createDb(config.db);
  const rateLimits = redis ? redisRateLimitStore(redis, log) : undefined;
  const authSecret = resolveAuthSecret(config);
  const auth = createAuth({ config, db, secret: authSecret, rateLimits });
  const setup = createSetupToken(config.setupToken);
  const signals = redis ? await createRedisSignals(redis, log) : createLocalSignals(log);
  // Imports are CPU-heavy (parsing): one at a time leaves the other core to the web server. Reviews
  // and pipeline runs mostly wait on a model, so two of each run beside an import; a knowledge base
  // builds one at a time. (BullMQ: the kinds' own limits per worker process, below.)
  const queue = redis
    ? createBullQueue({ redis, leaseMs: config.jobs.leaseMs, log })
    : createInProcessQueue({
        concurrency: 6,
        // A PR's job imports its head itself (CPU-bound, like an import): one at a time.
        perKind: { "snapshot.ingest": 1, review: 2, "pipeline.run": 2, "knowledge.index": 1, "forge.pull": 1 },
        log,
      });
  const events = createEventBus({ db, log });
  // One outbound policy for every URL a user chose (model connections, web runs' backends, forges).
  const outbound = createOutboundPolicy({ allow: config.outbound.allow });
  const providers = createProviderService(db, config, authSecret, fetch, outbound);
  const steering = createSteering({ db, events, log, signals, rateLimits });
  const notifications = createNotifications({ db, log });
  const reviews = createReviewService({ db, queue, events, log, providers, steering, signals });
  const shares = createShareService({ db, log });
  // Search indexes stay open between requests (opening one costs far more than searching it).
  const searchIndexes = createIndexCache(searchStoreUri(config));
  const snapshots = createSnapshotService({ db, config, queue, log, authSecret, searchIndexes });
  // A pull request's `@argus` question is answered on the PR too (server/forges/mentions.ts).
  const onAnswerEnded = (answer: { uid: string }) => void forges.answerEnded(answer.uid);
  const ask = createAskService({
    db,
    config,
    events,
    log,
    providers,
    searchIndexes,
    queue,
    signals,
    redis,
    onAnswerEnded,
  });
  const draftEndings = createDraftEndings(db, (err) => log.error({ err }, "ending a shared draft failed"));
  const pipelines = createPipelineService({
    db,
    draftEndings,
    config,
    events,
    log,
    authSecret,
    searchIndexes,
    queue,
    signals,
    outbound,
    workspaceModel: (workspaceId) => workspaceRunModel(db, providers, workspaceId),
  });
  const runIngest = createIngestJob({ db, config, log, authSecret, fail: snapshots.fail });
  const core = { db, config, log, events, queue, outbound };
  const forges = composeForges(core, { snapshots, runIngest, providers, reviews, ask, notifications });
  const knowledge = createKnowledgeService({ db, config, queue, events, log, searchIndexes });
  // Every job kind (server/jobs/kinds.ts), registered here and nowhere else.
  registerJobs(queue, {
    "snapshot.ingest": {
      handler: runIngest,
      options: { concurrency: 1, abandoned: (job) => snapshots.fail(job.snapshotId, snapshots.abandonedReason) },
    },
    review: {
      handler: createReviewJob({
        db,
        config,
        events,
        log,
        providers,
        steering,
        running: reviews.running,
        searchIndexes,
        takeOver: reviews.takeOver,
        watchStatus: queue.durable,
        notify: {
          // A pull request's review also goes back to its PR (server/forges).
          async reviewEnded(review, outcome, seq) {
            const sent = await notifications.notify.reviewEnded(review, outcome, seq);
            await forges
              .reviewEnded(review.uid)
              .catch((err: unknown) => log.error({ err }, "handing a review to its PR failed"));
            return sent;
          },
        },
      }),
      options: { concurrency: 2, abandoned: (job) => reviews.abandoned(job.reviewId) },
    },
    "ask.thread": ask.threadJob,
    "knowledge.index": knowledge.indexJob,
    "pipeline.run": pipelines.runJob,
    ...forges.jobs,
  });
  return {
    config,
    log,
    db,
    auth,
    queue,
    redis,
    signals,
    rateLimits,
    events,
    knowledge,
    snapshots,
    setup,
    workspaces: createWorkspaceService(
      db,
      auth,
      setup,
      createMembershipChanges((err) => log.error({ err }, "a membership-change listener failed")),
    ),
    projects: createProjectService(db, {
      dropStorage: (projectId, snapshotIds) => dropProjectStorage(config, projectId, snapshotIds, log),
      dropRooms: async (rooms) => {
        for (const room of rooms) await events.deleteRoom(room);
      },
    }),
    reviews,
    // `@argus …` in any room's chat asks Argus (server/ask); @mentions notify (server/notifications).
    roomChat: createRoomChat({ db, events, rateLimits, notify: notifications.notify, onSend: ask.fromChat }),
    roomReactions: createRoomReactions({ db, events, rateLimits }),
    preferences: createPreferences(db, (err) => log.error({ err }, "a preference listener failed")),
    findingTeam: createFindingTeam({ db, events, onVerdict: forges.verdictChanged }),
    steering,
    ask,
    shares,
    spectators: createSpectatorReads({ shares, reviews }),
    notifications,
    demo: createDemoService({ db, queue, snapshots, reviews }),
    prompts: createPromptService(db, draftEndings),
    draftEndings,
    providers,
    pipelines,
    outbound,
    pipelineChat: createPipelineChatService({ db, config, events, log, pipelines }),
    forges,
    pipelineAssistant: createPipelineAssistant({ db, log, chatModel: (id) => workspaceChatModel(db, providers, id) }),
    async close() {
      // Before the database closes: answers waiting are failed as interrupted (on a shared queue they
      // stay queued for another worker), running ones and pipeline runs started from the web get a
      // bounded time, then are stopped and recorded. Alongside the queue's close: a worker's queue
      // waits for its running jobs, and an answer's or a run's job ends only when those let it.
      await Promise.all([queue.close(), ask.shutdown(), pipelines.shutdown()]);
      await searchIndexes.close();
      await events.flush();
      await signals.close();
      await redis?.close();
      await db.$disconnect();
    },
  };
}

const KEY = Symbol.for("argus.services");
type Store = Record<symbol, Promise<Services> | undefined>;

/** The process-wide services (created on first use). */
export function getServices(): Promise<Services> {
  const store = globalThis as unknown as Store;
  store[KEY] ??= createServices(getConfig());
  return store[KEY];
}

export function setServices(services: Services): void {
  (globalThis as unknown as Store)[KEY] = Promise.resolve(services);
}

/** The forge layer (server/forges) over the services it drives: imports, reviews, Ask Argus. */
function composeForges(
  core: { db: Db; config: Config; log: Logger; events: EventBus; queue: JobQueue; outbound: OutboundPolicy },
  d: {
    snapshots: SnapshotService;
    runIngest: ReturnType<typeof createIngestJob>;
    providers: ProviderService;
    reviews: ReviewService;
    ask: AskService;
    notifications: Notifications;
  },
): ForgeService {
  const { db, config, log, queue, outbound, events } = core;
  const { snapshots, runIngest, providers, reviews, ask } = d;
  // PR replies and reactions land in a finding's thread and count as votes (server/forges/feedback.ts).
  const chat = createRoomChat({ db, events, notify: d.notifications.notify });
  const team = createFindingTeam({ db, events });
  return createForgeService({
    db,
    config,
    log,
    queue,
    // Every forge request through the outbound policy (a GitHub Enterprise host on the
    // company network is allowed by the operator in OUTBOUND_ALLOWED_HOSTS).
    fetch: outbound.fetch,
    box: createSecretBox(resolveAuthSecret(config), "forge-app"),
    beginSnapshot: (project, label, forge) => snapshots.begin(project, null, forge, label),
    runIngest: (job) => runIngest(job),
    failSnapshot: snapshots.fail,
    async startReview(uid, project, paths, settings, repo) {
      // The agent when the workspace has a model (and .argus.yaml does not ask for the static engine).
      const model = repo.engine === "static" ? null : await workspaceChatModel(db, providers, project.workspaceId);
      const engine = model ? "agent" : "static";
      const scope = { kind: "paths" as const, paths };
      await reviews.startForPullRequest(uid, { projectUid: project.uid, engine, scope, settings }, repo.instructions);
    },
    ask: (question) => ask.fromForge(question),
    say: chat.fromForge,
    vote: team.voteFromForge,
  });
}
