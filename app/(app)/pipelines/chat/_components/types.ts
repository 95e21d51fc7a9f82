/** API shapes the chat pages use, inferred from the router (never re-declared). */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router.ts";

type Out = inferRouterOutputs<AppRouter>["pipelineChat"];
export type ChatSession = Out["get"];
export type ChatSessionItem = Out["sessions"][number];
export type ChatPipeline = Out["pipelines"][number];
export type ChatTurnView = ChatSession["turns"][number];

export const chatHref = (uid: string) => `/pipelines/chat/${uid}`;
export const CHAT_HOME = "/pipelines/chat";
