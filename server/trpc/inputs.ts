/** Inputs many routers share: one row named by its uid, or a whole workspace. */
import { z } from "zod";

export const uidInput = z.object({ uid: z.uuid("uid must be a UUID") });
export const workspaceInput = z.object({ workspaceId: z.string().min(1) });
