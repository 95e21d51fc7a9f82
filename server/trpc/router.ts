import { router } from "./init.ts";
import { accountRouter } from "./routers/account.ts";
import { projectsRouter } from "./routers/projects.ts";
import { promptsRouter } from "./routers/prompts.ts";
import { providersRouter } from "./routers/providers.ts";

export const appRouter = router({
  account: accountRouter,
  projects: projectsRouter,
  prompts: promptsRouter,
  providers: providersRouter,
});

export type AppRouter = typeof appRouter;
