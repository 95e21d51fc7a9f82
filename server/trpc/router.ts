import { router } from "./init.ts";
import { accountRouter } from "./routers/account.ts";
import { askRouter } from "./routers/ask.ts";
import { forgesRouter } from "./routers/forges.ts";
import { knowledgeRouter } from "./routers/knowledge.ts";
import { notificationsRouter } from "./routers/notifications.ts";
import { pipelineAssistantRouter } from "./routers/pipeline-assistant.ts";
import { pipelineChatRouter } from "./routers/pipeline-chat.ts";
import { pipelinesRouter } from "./routers/pipelines.ts";
import { projectsRouter } from "./routers/projects.ts";
import { promptsRouter } from "./routers/prompts.ts";
import { providersRouter } from "./routers/providers.ts";
import { reviewsRouter } from "./routers/reviews.ts";
import { sharesRouter } from "./routers/shares.ts";
import { snapshotsRouter } from "./routers/snapshots.ts";
import { workspacesRouter } from "./routers/workspaces.ts";

export const appRouter = router({
  account: accountRouter,
  ask: askRouter,
  forges: forgesRouter,
  knowledge: knowledgeRouter,
  notifications: notificationsRouter,
  pipelineChat: pipelineChatRouter,
  pipelines: pipelinesRouter,
  pipelineAssistant: pipelineAssistantRouter,
  projects: projectsRouter,
  prompts: promptsRouter,
  providers: providersRouter,
  reviews: reviewsRouter,
  shares: sharesRouter,
  snapshots: snapshotsRouter,
  workspaces: workspacesRouter,
});

export type AppRouter = typeof appRouter;
