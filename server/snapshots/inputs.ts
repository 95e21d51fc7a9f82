/** The snapshot service's zod inputs (the tRPC router parses with them; the service's parts read their types). */
import { z } from "zod";
import { severitySchema } from "../shared/findings.ts";

export const importGitInput = z.object({
  projectUid: z.uuid(),
  url: z.string().trim().min(1, "Enter the repository URL.").max(2000),
  ref: z.string().trim().max(250).optional(),
  /** An access token for a private https repository; stored encrypted for refreshes of the same origin. */
  token: z.string().trim().min(1).max(1000).optional(),
});
export const importPathInput = z.object({
  projectUid: z.uuid(),
  path: z.string().trim().min(1, "Enter a folder path on the server.").max(4096),
});
export const searchInput = z.object({
  snapshotUid: z.uuid(),
  query: z.string().max(8192, "Keep the query under 8,192 characters."),
  mode: z.enum(["hybrid", "fulltext", "vector"]).default("hybrid"),
  k: z.number().int().min(1).max(100).default(20),
  pathGlob: z.string().max(500).optional(),
  language: z.string().max(50).optional(),
  symbolKind: z.string().max(50).optional(),
});

export const findingsInput = z.object({
  snapshotUid: z.uuid(),
  severity: severitySchema.optional(),
  file: z.string().max(4096).optional(),
  tool: z.string().max(50).optional(),
  limit: z.number().int().min(1).max(1000).default(500),
});
