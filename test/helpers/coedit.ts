/**
 * Co-editing in tests: a pipeline row to edit, and a DocClient (the browser's own, app/_lib/coedit)
 * on a real room socket that joined the pipeline's room.
 */
import { randomUUID } from "node:crypto";
import { DocClient, type DocSocket } from "../../app/_lib/coedit/doc-client.ts";
import type { Db } from "../../server/db/client.ts";
import { pipelineRoom, type RoomName } from "../../server/shared/rooms.ts";
import type { RoomClient } from "./room-client.ts";

export const SOURCE = "# title: Shared\nservers:\n  retriever: servers/retriever\npipeline:\n  - retriever.search\n";

export async function createPipelineRow(db: Db, workspaceId: string, source = SOURCE): Promise<RoomName<"pipeline">> {
  const uid = randomUUID();
  await db.pipeline.create({
    data: {
      uid,
      workspaceId,
      name: `p-${uid.slice(0, 8)}`,
      title: "Shared",
      source,
      parameters: JSON.stringify({ retriever: { top_k: 5 } }),
      valid: true,
    },
  });
  return pipelineRoom(uid);
}

export type Editor = DocClient & { client: RoomClient };

/** Joins the room with `client`, then opens its draft (resolves once synced or refused). */
export async function openEditor(client: RoomClient, room: string): Promise<Editor> {
  const joined = await client.call("join", { room, afterSeq: 0 });
  if (!joined.ok) throw new Error(`join failed: ${joined.message}`);
  const editor = Object.assign(new DocClient(client.socket as unknown as DocSocket, room), { client });
  await editor.open();
  return editor;
}

export const textOf = (e: DocClient, root = "yaml") => e.doc.getText(root).toString();

/** Resolves once every editor's text equals the first one's (after they flushed). */
export async function settled(editors: DocClient[], root = "yaml", timeoutMs = 10_000): Promise<string> {
  const start = Date.now();
  for (;;) {
    await Promise.all(editors.map((e) => e.flush()));
    const texts = editors.map((e) => textOf(e, root));
    if (texts.every((t) => t === texts[0]) && editors.every((e) => !e.state.unsent)) return texts[0]!;
    if (Date.now() - start > timeoutMs) throw new Error(`not converged: ${JSON.stringify(texts)}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}
