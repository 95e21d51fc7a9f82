import { router } from "./init.ts";
import { accountRouter } from "./routers/account.ts";
import { projectsRouter } from "./routers/projects.ts";
import { promptsRouter } from "./routers/prompts.ts";

export const appRouter = router({
  account: accountRouter,
  projects: projectsRouter,
  prompts: promptsRouter,
});

export type AppRouter = typeof appRouter;
