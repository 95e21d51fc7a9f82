/**
 * The world the security suite attacks: workspace A with one of everything (a project with a ready
 * snapshot, a completed review with findings, a knowledge base with a document, a custom prompt, a
 * provider connection holding an API key, a stored git token, an open invite, a share link of the
 * review, a pipeline with an API key among its parameters and a run of it) and its
 * owner, a member and a viewer; and workspace B, a separate workspace whose owner is the attacker.
 * Sign-up can only create the first workspace, so B is written through the database (the test helper
 * signUpInNewWorkspace) and its owner signs up through the real flow.
 *
 * Every name and text of A carries canaries.tagA, so "no data of A" is a substring search.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { expect } from "vitest";
import { resolveAuthSecret } from "../../../server/auth/secret.ts";
import { createSecretBox } from "../../../server/lib/secret-box.ts";
import { snapshotDirs } from "../../../server/snapshots/storage.ts";
import {
  inviteAndSignUp,
  signUp,
  signUpInNewWorkspace,
  startTestServer,
  type TestServer,
  type TestUser,
} from "../../helpers/server.ts";
import { buildZip } from "../../helpers/zip.ts";
import type { TestConfig } from "../../helpers/db.ts";
import { makeCanaries, secretsOf, type Canaries } from "./canaries.ts";
import { startTrap, type Trap } from "./wire.ts";
import { runRoom } from "../../../server/shared/rooms.ts";

export interface WorkspaceA {
  owner: TestUser;
  member: TestUser;
  viewer: TestUser;
  workspaceId: string;
  projectUid: string;
  snapshotUid: string;
  /** Absolute path of the ready snapshot's src/ folder (the Sandbox root). */
  snapshotRoot: string;
  reviewUid: string;
  fingerprint: string;
  baseUid: string;
  documentUid: string;
  promptUid: string;
  connectionUid: string;
  inviteId: string;
  inviteToken: string;
  /** A workspace pipeline whose parameters hold canaries.providerKey as an API key. */
  pipelineUid: string;
  runUid: string;
  /** A second run of that pipeline (comparing runs needs two). */
  secondRunUid: string;
  /** A pipeline chat session the member started, with one answered turn. */
  chatUid: string;
  /** A conversation with Argus on A's project, and its answer (citing src/app.ts:2). */
  threadUid: string;
  answerUid: string;
  /** The owner's inbox item for the review they started (its text names A's project). */
  notificationUid: string;
  /** A working share link of the review (spectators: test/security/spectators.test.ts). */
  shareUid: string;
  shareToken: string;
}

export interface World {
  server: TestServer;
  canaries: Canaries;
  a: WorkspaceA;
  /** B has code and a prompt of its own, so A's ids can be tried inside B's valid requests. */
  b: { owner: TestUser; workspaceId: string; projectUid: string; promptUid: string };
  /** Strings that only A's members may see: the tag, the members' emails, the invite token. */
  dataOfA: string[];
  /** Strings nobody may see: canary secrets and the server's own AUTH_SECRET. */
  secrets: string[];
  /** Where an attacker would like A's API key sent: it must never arrive. */
  trap: Trap;
  close(): Promise<void>;
}

/** The code of A's project: a SQL injection and a hard-coded AWS key for the static engine to find. */
export function projectFiles(tag: string): Record<string, string> {
  return {
    "src/app.ts": [
      `// ${tag} service`,
      "export function findUser(db: { query(sql: string): unknown }, id: string) {",
      `  return db.query("SELECT * FROM users WHERE id = '" + id + "'");`,
      "}",
      "",
    ].join("\n"),
    "src/util.ts": `export function formatName(name: string): string {\n  return name.trim(); // ${tag}\n}\n`,
    "config.js": `const awsKey = "AKIAIOSFODNN7EXAMPLQ";\nmodule.exports = { awsKey, owner: "${tag}" };\n`,
    ".gitignore": "secret.local\n",
    "README.md": `# ${tag}\n`,
  };
}

export function zipOf(files: Record<string, string>): Buffer {
  return buildZip(Object.entries(files).map(([name, data]) => ({ name, data })));
}

/** POST a zip to the upload route as `user` (with the Origin a browser sends). */
export function uploadZip(
  server: Pick<TestServer, "url">,
  user: Pick<TestUser, "client">,
  projectUid: string,
  zip: Buffer,
  name = "code.zip",
) {
  return fetch(`${server.url}/api/projects/${projectUid}/upload?kind=zip`, {
    method: "POST",
    headers: { cookie: user.client.cookie, origin: server.url, "x-file-name": name, "content-type": "application/zip" },
    body: new Uint8Array(zip),
  });
}

/** POST documents to a knowledge base's upload route as `user`. */
export function uploadDocuments(
  server: Pick<TestServer, "url">,
  user: Pick<TestUser, "client">,
  baseUid: string,
  docs: Record<string, string>,
) {
  const form = new FormData();
  for (const [name, text] of Object.entries(docs)) form.append("file", new Blob([text]), name);
  return fetch(`${server.url}/api/knowledge/${baseUid}/upload`, {
    method: "POST",
    headers: { cookie: user.client.cookie, origin: server.url },
    body: form,
  });
}

export async function newProject(user: Pick<TestUser, "client">, workspaceId: string, name: string): Promise<string> {
  const uid = randomUUID();
  await user.client.ok("mutate", "projects.create", { workspaceId, uid, name });
  return uid;
}

/** Uploads the files into a new project and waits for the import; returns the ready snapshot. */
export async function importProject(
  server: TestServer,
  user: TestUser,
  projectUid: string,
  files: Record<string, string>,
): Promise<{ snapshotUid: string; root: string }> {
  const res = await uploadZip(server, user, projectUid, zipOf(files));
  const body = (await res.json()) as { snapshotUid?: string; message?: string };
  if (res.status !== 201) throw new Error(`upload → ${res.status}: ${JSON.stringify(body)}`);
  await server.services.queue.idle();
  const snap = await server.services.db.snapshot.findUniqueOrThrow({ where: { uid: body.snapshotUid! } });
  if (snap.status !== "ready") throw new Error(`import ended ${snap.status}: ${snap.message}`);
  return { snapshotUid: snap.uid, root: snapshotDirs(server.services.config.dataDir, snap.projectId, snap.id).src };
}

export async function buildWorld(opts: { db?: TestConfig } = {}): Promise<World> {
  const canaries = makeCanaries();
  const tag = canaries.tagA;
  const server = await startTestServer(opts.db);
  const { db, config } = server.services;

  const owner = await signUp(server.url, { name: `${tag} Owner` });
  const member = await inviteAndSignUp(owner, "member", `${tag} Member`);
  const viewer = await inviteAndSignUp(owner, "viewer", `${tag} Viewer`);
  const workspaceId = owner.workspaceId;

  const projectUid = await newProject(owner, workspaceId, `${tag} project`);
  const { snapshotUid, root } = await importProject(server, owner, projectUid, projectFiles(tag));

  const review = await owner.client.ok<{ uid: string }>("mutate", "reviews.start", { projectUid, engine: "static" });
  await server.services.queue.idle();
  const findings = await owner.client.ok<{ fingerprint: string }[]>("query", "reviews.findings", {
    reviewUid: review.uid,
  });
  expect(findings.length, "the static review of A's project found nothing").toBeGreaterThan(0);
  const notification = await db.notification.findFirst({ where: { userId: owner.userId, kind: "review_finished" } });
  expect(notification?.text, "the owner was not told that their review finished").toContain(tag);

  const base = await owner.client.ok<{ uid: string }>("mutate", "knowledge.create", {
    workspaceId,
    name: `${tag} handbook`,
  });
  const docRes = await uploadDocuments(server, owner, base.uid, {
    [`${tag}-notes.md`]: `# ${tag} notes\n\nThe ${tag} service stores orders.\n`,
  });
  expect(docRes.status).toBe(201);
  const { documents } = (await docRes.json()) as { documents: { uid: string }[] };
  await server.services.queue.idle();

  const promptUid = randomUUID();
  await owner.client.ok("mutate", "prompts.create", {
    workspaceId,
    uid: promptUid,
    name: `${tag} prompt`,
    content: `Review the code the ${tag} way.`,
  });

  const connectionUid = randomUUID();
  await owner.client.ok("mutate", "providers.save", {
    workspaceId,
    uid: connectionUid,
    name: `${tag} connection`,
    provider: "anthropic",
    // Nothing listens here: a connection test must fail without echoing the key.
    baseUrl: "http://127.0.0.1:9/",
    apiKey: canaries.providerKey,
  });

  const invite = await owner.client.ok<{ id: string; token: string }>("mutate", "account.createInvite", {
    workspaceId,
    role: "member",
  });

  const share = await owner.client.ok<{ uid: string; token: string }>("mutate", "shares.create", {
    reviewUid: review.uid,
  });

  // A stored git token, planted the way importGit stores one (sealed for its origin).
  const authSecret = resolveAuthSecret(config);
  await db.project.update({
    where: { uid: projectUid },
    data: {
      gitUrl: "https://git.example.test/acme/app.git",
      gitTokenCipher: createSecretBox(authSecret, "git-tokens").seal(canaries.gitToken),
    },
  });

  // A pipeline with a secret parameter, and a finished run of it (one row and an event are enough).
  const pipeline = await member.client.ok<{ uid: string }>("mutate", "pipelines.create", {
    workspaceId,
    name: `pipe_${tag}`,
    source: `# ---\n# title: "${tag} pipeline"\n# ---\nservers:\n  sayhello: servers/sayhello\npipeline:\n  - sayhello.greet\n`,
    parameters: { sayhello: { name: tag, api_key: canaries.providerKey } },
  });
  const pipelineRow = await db.pipeline.findUniqueOrThrow({ where: { uid: pipeline.uid } });
  const runUid = randomUUID();
  const secondRunUid = randomUUID();
  for (const uid of [runUid, secondRunUid])
    await db.pipelineRun.create({
      data: {
        uid,
        workspaceId,
        pipelineId: pipelineRow.id,
        pipelineVersion: 1,
        pipelineName: `${tag} pipeline`,
        pipelinePath: "pipelines/rag.yaml",
        pipelineHash: "0".repeat(64),
        params: "{}",
        status: "completed",
        outputs: JSON.stringify({ answer: tag }),
      },
    });
  await server.services.events.publish(runRoom(runUid), { type: "step_start", payload: { name: tag, depth: 0 } });

  // A conversation with Argus, planted the way the ask service stores one (no model is asked).
  const threadUid = randomUUID();
  const answerUid = randomUUID();
  const project = await db.project.findUniqueOrThrow({ where: { uid: projectUid } });
  await db.askThread.create({
    data: {
      uid: threadUid,
      workspaceId,
      projectId: project.id,
      snapshotId: project.currentSnapshotId!,
      title: `${tag} question`,
      createdById: member.userId,
      messages: {
        create: [
          {
            uid: randomUUID(),
            workspaceId,
            kind: "question",
            authorId: member.userId,
            body: `${tag} where is SQL built?`,
          },
          {
            uid: answerUid,
            workspaceId,
            kind: "answer",
            body: `${tag}: in src/app.ts:2-3.`,
            status: "done",
            mode: "model",
            details: JSON.stringify({
              citations: [{ path: "src/app.ts", line: 2, endLine: 3, status: "ok", fileLines: 4 }],
            }),
          },
        ],
      },
    },
  });

  // A chat with a gallery pipeline, planted the way the chat service stores one (no run is started).
  const chatUid = randomUUID();
  await db.pipelineChat.create({
    data: {
      uid: chatUid,
      workspaceId,
      galleryKey: "vanilla_rag",
      pipelineTitle: "Vanilla RAG (BM25)",
      title: `${tag} chat`,
      createdById: member.userId,
      messages: {
        create: [
          { uid: randomUUID(), role: "user", body: `${tag} which mountain?` },
          {
            uid: randomUUID(),
            role: "assistant",
            body: `${tag} Everest [1].`,
            mode: "pipeline",
            sources: JSON.stringify([{ id: 1, title: tag, content: `${tag} passage` }]),
          },
        ],
      },
    },
  });

  const stranger = await signUpInNewWorkspace(server, "Stranger");
  const bProject = await newProject(stranger, stranger.workspaceId, "Stranger's project");
  await importProject(server, stranger, bProject, { "main.py": "def main():\n    return 1\n" });
  const bPrompt = randomUUID();
  await stranger.client.ok("mutate", "prompts.create", {
    workspaceId: stranger.workspaceId,
    uid: bPrompt,
    name: "Stranger's prompt",
    content: "Review it.",
  });

  const a: WorkspaceA = {
    owner,
    member,
    viewer,
    workspaceId,
    projectUid,
    snapshotUid,
    snapshotRoot: root,
    reviewUid: review.uid,
    fingerprint: findings[0]!.fingerprint,
    baseUid: base.uid,
    documentUid: documents[0]!.uid,
    promptUid,
    connectionUid,
    inviteId: invite.id,
    inviteToken: invite.token,
    pipelineUid: pipeline.uid,
    runUid,
    secondRunUid,
    chatUid,
    threadUid,
    answerUid,
    notificationUid: notification!.uid,
    shareUid: share.uid,
    shareToken: share.token,
  };
  const trap = await startTrap();
  return {
    server,
    canaries,
    trap,
    close: async () => {
      await trap.close();
      await server.stop();
    },
    a,
    b: { owner: stranger, workspaceId: stranger.workspaceId, projectUid: bProject, promptUid: bPrompt },
    dataOfA: [tag, owner.email, member.email, viewer.email, invite.token, share.token],
    secrets: [...secretsOf(canaries), authSecret],
  };
}

/** The folder of DATA_DIR that holds everything; files planted here are outside every snapshot. */
export const dataDirOf = (w: World) => path.resolve(w.server.services.config.dataDir);
