/**
 * tRPC is set up once here: the request context (services + the signed-in actor), the error shape
 * (zod issues with their field paths → 400; domain errors → 401/403/404/409) and the procedures.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { z, ZodError } from "zod";
import type { Actor } from "../auth/access.ts";
import type { Services } from "../context.ts";
import { DomainError, type DomainErrorKind } from "../errors.ts";
import { publicError } from "../errors-public.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";

export interface TrpcContext {
  services: Services;
  actor: Actor;
  /** Adds a header to the HTTP response (used to pass better-auth's Set-Cookie through). */
  appendResponseHeader(name: string, value: string): void;
}

const codeFor: Record<DomainErrorKind, TRPC_ERROR_CODE_KEY> = {
  invalid: "BAD_REQUEST",
  unauthenticated: "UNAUTHORIZED",
  forbidden: "FORBIDDEN",
  not_found: "NOT_FOUND",
  conflict: "CONFLICT",
};

/** "name: Give the prompt a name." — one line per problem, each naming its field. */
export function describeZodError(error: ZodError): string {
  return formatZodIssues(error);
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const zod = error.cause instanceof ZodError ? error.cause : null;
    // A service's refusal about one field (a token GitLab refused) is shown under it, as zod's are.
    const field = error.cause instanceof DomainError ? error.cause.field : undefined;
    return {
      ...shape,
      message: zod ? describeZodError(zod) : shape.message,
      data: {
        ...shape.data,
        stack: undefined,
        fieldErrors: zod ? z.flattenError(zod).fieldErrors : field ? { [field]: [shape.message] } : undefined,
        issues: zod ? zod.issues.map((i) => ({ path: i.path.map(String), message: i.message })) : undefined,
      },
    };
  },
});

/** Turns domain errors into tRPC errors; anything else is an unexpected 500 (logged with a reference, not leaked). */
const mapErrors = t.middleware(async ({ ctx, next, path }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof DomainError) {
      throw new TRPCError({ code: codeFor[cause.kind], message: cause.message, cause });
    }
    if (result.error.code === "INTERNAL_SERVER_ERROR") {
      const { message } = publicError(cause ?? result.error, {
        doing: "answering the request",
        log: ctx.services.log,
        context: { path },
      });
      throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message });
    }
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Anyone, signed in or not (sign-up state, invite info). */
export const publicProcedure = t.procedure.use(mapErrors);

/** Signed-in users; the services then check workspace and role with requireRole. */
export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.actor) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  return next({ ctx: { ...ctx, actor: ctx.actor } });
});
