/** The provider service's zod inputs and "Test connection"'s result, shared by the service and its parts. */
import { z } from "zod";
import { PROVIDERS } from "../llm/index.ts";

const httpUrl = z.url({ protocol: /^https?$/, error: "Enter an http(s) URL, e.g. http://localhost:11434/v1" });

export const connectionFields = z.object({
  name: z.string().trim().min(1, "Give the connection a name.").max(60, "Keep the name under 60 characters."),
  provider: z.enum(PROVIDERS),
  baseUrl: z.union([httpUrl, z.literal("")]).optional(),
  model: z.string().trim().max(200).optional(),
  /** Omitted when editing: the stored key stays. */
  apiKey: z.string().trim().min(1).max(1000).optional(),
});

export const saveConnectionInput = connectionFields
  .extend({ workspaceId: z.string().min(1), uid: z.uuid("uid must be a UUID"), clearKey: z.boolean().optional() })
  .refine((c) => c.provider !== "openai-compatible" || !!c.baseUrl, {
    path: ["baseUrl"],
    message: "An OpenAI-compatible server needs its base URL.",
  })
  .refine((c) => c.provider !== "openai-compatible" || !!c.model, {
    path: ["model"],
    message: "Name the model to use on that server.",
  });

export const testConnectionInput = z.union([
  z.object({ uid: z.uuid() }),
  z.object({ environment: z.literal(true), workspaceId: z.string().min(1) }),
  connectionFields.extend({ workspaceId: z.string().min(1), uid: z.uuid().optional() }),
]);

export type TestResult =
  { ok: true; model: string; latencyMs: number; reply: string } | { ok: false; error: string; latencyMs: number };
