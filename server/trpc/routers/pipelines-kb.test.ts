/** "Try in a pipeline": the gallery's knowledge-base pipeline forked with its retriever reading one base. */
import { describe, expect, it } from "vitest";
import { signUpInNewWorkspace } from "../../../test/helpers/server.ts";
import { startServerWithTeam } from "./test-support.ts";

const { server, member, viewer } = await startServerWithTeam();
const ws = member.workspaceId;

describe("forking the knowledge-base pipeline preset with a base", () => {
  it("sets every retriever's collection_name to kb:<name>, valid and ready to run", async () => {
    const base = await member.client.ok<{ uid: string; name: string }>("mutate", "knowledge.create", {
      workspaceId: ws,
      name: "Harbour notes",
    });
    const fork = await member.client.ok<{ uid: string; name: string; valid: boolean }>("mutate", "pipelines.fork", {
      workspaceId: ws,
      key: "kb_rag",
      knowledgeBaseUid: base.uid,
    });
    expect(fork.valid).toBe(true);
    expect(fork.name).toBe("kb_rag");
    const p = await viewer.client.ok<{ parameters: { retriever: { collection_name: string; top_k: number } } }>(
      "query",
      "pipelines.get",
      { uid: fork.uid },
    );
    expect(p.parameters.retriever.collection_name).toBe("kb:Harbour notes");
    expect(p.parameters.retriever.top_k).toBe(3); // the rest of the gallery's file stays
  });

  it("refuses another workspace's base as not found, and a viewer", async () => {
    const other = await signUpInNewWorkspace(server, "Otto");
    const theirs = await other.client.ok<{ uid: string }>("mutate", "knowledge.create", {
      workspaceId: other.workspaceId,
      name: "Secret base",
    });
    const r = await member.client.mutate("pipelines.fork", {
      workspaceId: ws,
      key: "kb_rag",
      knowledgeBaseUid: theirs.uid,
    });
    expect(r.status).toBe(404);
    const base = await member.client.ok<{ uid: string }>("mutate", "knowledge.create", { workspaceId: ws, name: "B2" });
    const refused = await viewer.client.mutate("pipelines.fork", {
      workspaceId: ws,
      key: "kb_rag",
      knowledgeBaseUid: base.uid,
    });
    expect(refused.status).toBe(403);
  });
});
