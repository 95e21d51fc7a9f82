/**
 * One security case per tRPC procedure, keyed by its path. access.test.ts checks that the keys equal
 * the app router's procedures, then calls each as anonymous, as the owner of ANOTHER workspace (with
 * A's real ids), and as every role of A below `access`.
 *
 * The statuses follow docs/architecture.md "One authorization check": no session → 401; not a member,
 * or a role too weak → 403; an id that does not exist (in the workspace the request names) → 404.
 */
import { randomUUID } from "node:crypto";
import type { Role } from "../../../server/auth/roles.ts";
import { DEFAULT_CHUNKING } from "../../../server/knowledge/chunking.ts";
import { uniqueEmail } from "../../helpers/server.ts";
import type { World } from "./world.ts";

export type ActorName = "anonymous" | "outsider" | "viewer" | "member" | "owner";

export interface ProcedureCase {
  /** public: anyone; signedIn: any account, about itself only; a role: the least role of the workspace. */
  access: "public" | "signedIn" | Role;
  input: (w: World) => unknown;
  /** Expected statuses where the rule above does not decide (public and signedIn procedures). */
  expect?: Partial<Record<ActorName, number>>;
  /** More calls by the outsider: a request valid inside B that smuggles in one of A's ids. */
  crossIds?: { why: string; input: (w: World) => unknown; status: number }[];
  /** Why the case looks the way it does, when that is not obvious. */
  note?: string;
}

const ws = (w: World) => ({ workspaceId: w.a.workspaceId });
const random = () => randomUUID();

export const PROCEDURE_CASES: Record<string, ProcedureCase> = {
  // ── account ──
  "account.setupState": { access: "public", input: () => undefined, expect: { anonymous: 200, outsider: 200 } },
  "account.signUp": {
    access: "public",
    input: () => ({ name: "Intruder", email: uniqueEmail("intruder"), password: "a long enough password" }),
    expect: { anonymous: 403, outsider: 403, viewer: 403 },
    note: "Argus is set up: without an invite, sign-up is refused for everyone.",
  },
  "account.me": { access: "signedIn", input: () => undefined },
  "account.preferences": { access: "signedIn", input: () => undefined, note: "The caller's own choices only." },
  "account.setPreferences": {
    access: "signedIn",
    input: () => ({ hidePosition: false }),
    note: "Takes no user id: it can only change the caller's own choices.",
  },
  "account.inviteInfo": {
    access: "public",
    input: () => ({ token: `guess-${random()}` }),
    expect: { anonymous: 404, outsider: 404 },
    note: "The token is the secret (it names its workspace by design); a guessed one finds nothing.",
  },
  "account.acceptInvite": {
    access: "signedIn",
    input: () => ({ token: `guess-${random()}` }),
    expect: { outsider: 404, viewer: 404 },
  },
  "account.createInvite": { access: "owner", input: (w) => ({ ...ws(w), role: "member" }) },
  "account.invites": { access: "owner", input: ws },
  "account.revokeInvite": { access: "owner", input: (w) => ({ id: w.a.inviteId }) },

  // ── notifications: each user's own inbox ──
  // ── forges ──
  "forges.installations": { access: "owner", input: ws },
  "forges.connect": {
    access: "owner",
    input: (w) => ({ ...ws(w), forge: "github", installationId: 1 + Math.floor(Math.random() * 1e9) }),
  },
  "forges.disconnect": { access: "owner", input: (w) => ({ ...ws(w), forge: "github", installationId: 1 }) },
  "forges.setRepoMode": {
    access: "owner",
    input: (w) => ({ projectUid: w.a.projectUid, mode: "off", failOn: "high" }),
  },
  "forges.pullOfReview": { access: "viewer", input: (w) => ({ reviewUid: w.a.reviewUid }) },
  "forges.gitlabConnections": { access: "member", input: ws },
  "forges.gitlabSetup": { access: "member", input: ws },
  "forges.connectGitLab": {
    access: "owner",
    input: (w) => ({ ...ws(w), namespace: "acme/shop", token: "glpat-never-sent-0123", webhookSecret: "s".repeat(32) }),
    note: "The role is checked before the token is tried against GitLab: nothing leaves Argus for a caller below owner.",
  },
  "forges.disconnectGitLab": { access: "owner", input: (w) => ({ ...ws(w), namespace: "acme/shop" }) },
  "forges.saveApp": {
    access: "owner",
    input: (w) => ({
      ...ws(w),
      appId: 4242,
      privateKey: "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
      webhookSecret: "a-webhook-secret-of-32-characters",
    }),
    note: "The key and the secret are sealed per workspace and never returned (server/forges/workspace-apps.test.ts).",
  },
  "forges.removeApp": { access: "owner", input: ws },
  "notifications.list": { access: "signedIn", input: () => ({ limit: 100 }) },
  "notifications.unreadCount": { access: "signedIn", input: () => undefined },
  "notifications.markRead": {
    access: "signedIn",
    input: (w) => ({ ids: [w.a.notificationUid] }),
    expect: { outsider: 404, viewer: 404, member: 404 },
    note: "The owner's own notification: to anyone else it does not exist (and stays unread).",
  },
  "notifications.markAllRead": {
    access: "signedIn",
    input: () => undefined,
    note: "About the caller's own inbox only (the router test checks that others' stay unread).",
  },

  // ── workspaces ──
  "workspaces.create": {
    access: "signedIn",
    input: () => ({ name: "Intruder's own workspace" }),
    expect: { outsider: 200, viewer: 403 },
    note: "Anyone who is a member or owner somewhere may create a workspace of their own; a viewer-only user may not.",
  },
  "workspaces.switch": { access: "viewer", input: ws },
  "workspaces.members": { access: "viewer", input: ws },
  "workspaces.changeRole": {
    access: "owner",
    input: (w) => ({ ...ws(w), userId: w.a.member.userId, role: "viewer" }),
    crossIds: [
      {
        why: "B's workspace, A's owner",
        input: (w) => ({ workspaceId: w.b.workspaceId, userId: w.a.owner.userId, role: "viewer" }),
        status: 404,
      },
    ],
  },
  "workspaces.removeMember": {
    access: "owner",
    input: (w) => ({ ...ws(w), userId: w.a.member.userId }),
    crossIds: [
      {
        why: "B's workspace, A's owner",
        input: (w) => ({ workspaceId: w.b.workspaceId, userId: w.a.owner.userId }),
        status: 404,
      },
    ],
  },
  "workspaces.leave": { access: "viewer", input: ws },

  // ── ask (conversations with Argus) ──
  "ask.threads": { access: "viewer", input: (w) => ({ projectUid: w.a.projectUid }) },
  "ask.thread": { access: "viewer", input: (w) => ({ threadUid: w.a.threadUid }) },
  "ask.ask": {
    access: "member",
    input: (w) => ({ threadUid: w.a.threadUid, question: `from B ${w.canaries.tagA}` }),
    crossIds: [
      {
        why: "a new thread on A's review",
        input: (w) => ({ reviewUid: w.a.reviewUid, fingerprint: w.a.fingerprint, question: "what is this?" }),
        status: 403,
      },
      {
        why: "a new thread on A's project",
        input: (w) => ({ projectUid: w.a.projectUid, question: "hi" }),
        status: 403,
      },
    ],
    note: "Asking spends the workspace's model budget: members and owners only; viewers watch.",
  },
  "ask.cancel": { access: "member", input: (w) => ({ answerUid: w.a.answerUid }) },
  "ask.budget": { access: "viewer", input: ws },
  "ask.setBudget": { access: "owner", input: (w) => ({ ...ws(w), maxTokens: 1, maxCostUsd: null }) },
  "ask.findingDraft": { access: "viewer", input: (w) => ({ answerUid: w.a.answerUid }) },
  "ask.saveFinding": {
    access: "member",
    input: (w) => ({
      answerUid: w.a.answerUid,
      target: "review",
      reviewUid: w.a.reviewUid,
      title: "Planted by an intruder",
      severity: "high",
      category: "security",
      file: "src/app.ts",
      startLine: 1,
      endLine: 2,
      explanation: "intruder",
    }),
  },
  "ask.teamFindings": { access: "viewer", input: (w) => ({ projectUid: w.a.projectUid }) },

  // ── knowledge ──
  // ── pipelines ──
  "pipelines.list": { access: "viewer", input: ws },
  "pipelines.gallery": { access: "viewer", input: (w) => ({ ...ws(w), key: "bm25_search" }) },
  "pipelines.get": { access: "viewer", input: (w) => ({ uid: w.a.pipelineUid }) },
  "pipelines.validate": {
    access: "viewer",
    input: (w) => ({ ...ws(w), source: "servers:\n  sayhello: servers/sayhello\npipeline:\n  - sayhello.greet\n" }),
  },
  "pipelines.servers": { access: "viewer", input: ws },
  "pipelines.create": {
    access: "member",
    input: (w) => ({ ...ws(w), name: `intruder_${random().slice(0, 8)}`, source: "servers: {}\npipeline: []\n" }),
  },
  "pipelines.fork": {
    access: "member",
    input: (w) => ({ ...ws(w), key: "bm25_search", name: `fork_${random().slice(0, 8)}` }),
    crossIds: [
      {
        why: "B's workspace, preset with A's knowledge base",
        input: (w) => ({ workspaceId: w.b.workspaceId, key: "kb_rag", knowledgeBaseUid: w.a.baseUid }),
        status: 404,
      },
    ],
  },
  "pipelines.save": {
    access: "member",
    input: (w) => ({
      uid: w.a.pipelineUid,
      source: "servers:\n  sayhello: servers/sayhello\npipeline:\n  - sayhello.greet\n",
    }),
  },
  "pipelines.delete": { access: "member", input: (w) => ({ uid: w.a.pipelineUid }), note: "Members may; not probed." },
  "pipelines.versions": { access: "viewer", input: (w) => ({ uid: w.a.pipelineUid }) },
  "pipelines.diff": { access: "viewer", input: (w) => ({ uid: w.a.pipelineUid, from: 1, to: 1 }) },
  "pipelines.startRun": {
    access: "member",
    input: (w) => ({ target: { uid: w.a.pipelineUid }, dataset: { kind: "sample" } }),
    crossIds: [
      {
        why: "a gallery run in A's workspace, asked by B's owner",
        input: (w) => ({ target: { ...ws(w), key: "bm25_search" }, dataset: { kind: "sample" } }),
        status: 403,
      },
    ],
  },
  "pipelines.cancelRun": { access: "member", input: (w) => ({ uid: w.a.runUid }) },
  "pipelines.rerun": { access: "member", input: (w) => ({ uid: w.a.runUid }) },
  "pipelines.compareRuns": {
    access: "viewer",
    input: (w) => ({ a: w.a.runUid, b: w.a.secondRunUid }),
  },
  "pipelines.runs": {
    access: "viewer",
    input: ws,
    crossIds: [
      {
        why: "B's workspace, A's pipeline uid",
        input: (w) => ({ workspaceId: w.b.workspaceId, pipelineUid: w.a.pipelineUid }),
        status: 404,
      },
    ],
  },
  "pipelines.run": { access: "viewer", input: (w) => ({ uid: w.a.runUid }) },
  "pipelines.runCase": { access: "viewer", input: (w) => ({ uid: w.a.runUid }) },
  // ── pipeline chat ──
  "pipelineChat.pipelines": { access: "viewer", input: ws },
  "pipelineChat.sessions": { access: "viewer", input: ws },
  "pipelineChat.get": { access: "viewer", input: (w) => ({ uid: w.a.chatUid }) },
  "pipelineChat.export": { access: "viewer", input: (w) => ({ uid: w.a.chatUid, format: "markdown" }) },
  "pipelineChat.create": {
    access: "member",
    input: (w) => ({ target: { ...ws(w), key: "vanilla_rag" } }),
    crossIds: [
      {
        why: "A's workspace pipeline, asked by B's owner",
        input: (w) => ({ target: { uid: w.a.pipelineUid } }),
        status: 403,
      },
    ],
  },
  "pipelineChat.send": {
    access: "member",
    input: (w) => ({ uid: w.a.chatUid, text: "Which mountain is the highest?" }),
    expect: { owner: 403 },
    note: "Only the member who started the session asks in it: A's owner is refused too.",
  },
  "pipelineChat.rename": {
    access: "member",
    input: (w) => ({ uid: w.a.chatUid, name: "Renamed by an intruder" }),
    expect: { owner: 403 },
    note: "Only the member who started the session renames it.",
  },
  "pipelineChat.delete": {
    access: "member",
    input: (w) => ({ uid: w.a.chatUid }),
    note: "Its starter or an owner may; not probed.",
  },
  // ── pipeline builder assistant ──
  "pipelineAssistant.status": { access: "viewer", input: ws },
  "pipelineAssistant.propose": {
    access: "member",
    input: (w) => ({
      uid: w.a.pipelineUid,
      request: "add a reranker after retrieval",
      source: "servers:\n  sayhello: servers/sayhello\npipeline:\n  - sayhello.greet\n",
      parameters: {},
    }),
    note: "A proposal costs model tokens: viewers may not ask for one.",
  },
  "knowledge.list": { access: "viewer", input: ws },
  "knowledge.get": { access: "viewer", input: (w) => ({ uid: w.a.baseUid }) },
  "knowledge.create": { access: "member", input: (w) => ({ ...ws(w), name: "Intruder's base" }) },
  "knowledge.update": { access: "member", input: (w) => ({ uid: w.a.baseUid, name: "Renamed by an intruder" }) },
  "knowledge.delete": { access: "member", input: (w) => ({ uid: w.a.baseUid }) },
  "knowledge.documents": { access: "viewer", input: (w) => ({ uid: w.a.baseUid }) },
  "knowledge.deleteDocument": { access: "member", input: (w) => ({ documentUid: w.a.documentUid }) },
  "knowledge.setChunking": { access: "member", input: (w) => ({ uid: w.a.baseUid, chunking: DEFAULT_CHUNKING }) },
  "knowledge.rebuild": { access: "member", input: (w) => ({ uid: w.a.baseUid }) },
  "knowledge.search": { access: "viewer", input: (w) => ({ uid: w.a.baseUid, query: w.canaries.tagA }) },

  // ── projects ──
  "projects.list": { access: "viewer", input: ws },
  "projects.get": { access: "viewer", input: (w) => ({ uid: w.a.projectUid }) },
  "projects.create": {
    access: "member",
    input: (w) => ({ ...ws(w), uid: random(), name: "Intruder's project" }),
    crossIds: [
      {
        why: "B's workspace, A's project uid",
        input: (w) => ({ workspaceId: w.b.workspaceId, uid: w.a.projectUid, name: "Hijack" }),
        status: 409,
      },
    ],
  },
  "projects.rename": { access: "member", input: (w) => ({ uid: w.a.projectUid, name: "Renamed by an intruder" }) },
  "projects.startDemo": { access: "member", input: ws },
  "projects.delete": { access: "member", input: (w) => ({ uid: w.a.projectUid }) },

  // ── prompts ──
  "prompts.list": { access: "viewer", input: ws },
  "prompts.get": { access: "viewer", input: (w) => ({ uid: w.a.promptUid }) },
  "prompts.create": {
    access: "member",
    input: (w) => ({ ...ws(w), uid: random(), name: "Intruder's prompt", content: "x" }),
    crossIds: [
      {
        why: "B's workspace, A's prompt uid",
        input: (w) => ({ workspaceId: w.b.workspaceId, uid: w.a.promptUid, name: "Hijack", content: "x" }),
        status: 409,
      },
    ],
  },
  "prompts.update": { access: "member", input: (w) => ({ uid: w.a.promptUid, content: "Overwritten" }) },
  "prompts.setDefault": { access: "member", input: (w) => ({ uid: w.a.promptUid, isDefault: true }) },
  "prompts.duplicate": { access: "member", input: (w) => ({ uid: w.a.promptUid, newUid: random() }) },
  "prompts.delete": { access: "member", input: (w) => ({ uid: w.a.promptUid }) },

  // ── providers ──
  "providers.catalog": { access: "signedIn", input: () => undefined },
  "providers.list": { access: "viewer", input: ws },
  "providers.save": {
    access: "owner",
    input: (w) => ({ ...ws(w), uid: w.a.connectionUid, name: "Hijacked", provider: "anthropic" }),
    crossIds: [
      {
        why: "B's workspace, A's connection uid",
        input: (w) => ({ workspaceId: w.b.workspaceId, uid: w.a.connectionUid, name: "Hijack", provider: "anthropic" }),
        status: 404,
      },
    ],
  },
  "providers.delete": { access: "owner", input: (w) => ({ uid: w.a.connectionUid }) },
  "providers.workspaceDefault": { access: "viewer", input: ws },
  "providers.setDefault": {
    access: "owner",
    input: (w) => ({ ...ws(w), uid: w.a.connectionUid }),
    crossIds: [
      {
        why: "B's workspace, A's connection uid (to make B's default borrow A's stored key)",
        input: (w) => ({ workspaceId: w.b.workspaceId, uid: w.a.connectionUid }),
        status: 404,
      },
    ],
  },
  "providers.test": {
    access: "owner",
    input: (w) => ({ uid: w.a.connectionUid }),
    crossIds: [
      {
        // The input union takes the first shape that fits ({uid}), so this is a test of A's connection: 403.
        why: "a draft in B naming A's connection (to borrow its stored key) and the attacker's base URL",
        input: (w) => ({
          workspaceId: w.b.workspaceId,
          uid: w.a.connectionUid,
          name: "Probe",
          provider: "anthropic",
          baseUrl: w.trap.url,
        }),
        status: 403,
      },
    ],
  },
  "providers.detectOllama": { access: "viewer", input: ws },

  // ── reviews ──
  "reviews.start": {
    access: "member",
    input: (w) => ({ projectUid: w.a.projectUid, engine: "static" }),
    crossIds: [
      {
        why: "B's project, A's prompt",
        input: (w) => ({ projectUid: w.b.projectUid, engine: "agent", promptUid: w.a.promptUid }),
        status: 404,
      },
      {
        why: "B's project and prompt, A's provider connection (its key)",
        input: (w) => ({
          projectUid: w.b.projectUid,
          engine: "agent",
          promptUid: w.b.promptUid,
          connectionUid: w.a.connectionUid,
        }),
        status: 404,
      },
    ],
  },
  "reviews.list": {
    access: "viewer",
    input: ws,
    crossIds: [
      {
        why: "B's workspace, A's project",
        input: (w) => ({ workspaceId: w.b.workspaceId, projectUid: w.a.projectUid }),
        status: 404,
      },
    ],
  },
  "reviews.get": { access: "viewer", input: (w) => ({ uid: w.a.reviewUid }) },
  "reviews.findings": { access: "viewer", input: (w) => ({ reviewUid: w.a.reviewUid }) },
  "reviews.events": { access: "viewer", input: (w) => ({ uid: w.a.reviewUid }) },
  "reviews.cancel": { access: "member", input: (w) => ({ uid: w.a.reviewUid }) },
  "reviews.rerun": { access: "member", input: (w) => ({ uid: w.a.reviewUid }) },
  "reviews.remove": { access: "member", input: (w) => ({ uid: w.a.reviewUid }) },
  "reviews.dismiss": {
    access: "member",
    input: (w) => ({ reviewUid: w.a.reviewUid, fingerprint: w.a.fingerprint, reason: "intruder" }),
  },
  "reviews.undismiss": { access: "member", input: (w) => ({ reviewUid: w.a.reviewUid, fingerprint: w.a.fingerprint }) },
  "reviews.trend": { access: "viewer", input: (w) => ({ projectUid: w.a.projectUid }) },

  // ── shares ──
  "shares.create": { access: "member", input: (w) => ({ reviewUid: w.a.reviewUid }) },
  "shares.list": { access: "member", input: (w) => ({ reviewUid: w.a.reviewUid }) },
  "shares.revoke": { access: "member", input: (w) => ({ uid: w.a.shareUid }) },
  "shares.review": {
    access: "public",
    input: () => ({ token: `guess-${random()}` }),
    expect: { anonymous: 404, outsider: 404 },
    note: "The token is the right; a guessed one finds nothing. What a real one shows: spectators.test.ts.",
  },
  "shares.findings": {
    access: "public",
    input: () => ({ token: `guess-${random()}` }),
    expect: { anonymous: 404, outsider: 404 },
  },
  "shares.events": {
    access: "public",
    input: () => ({ token: `guess-${random()}` }),
    expect: { anonymous: 404, outsider: 404 },
  },

  // ── snapshots ──
  "snapshots.list": { access: "viewer", input: (w) => ({ projectUid: w.a.projectUid }) },
  "snapshots.get": { access: "viewer", input: (w) => ({ snapshotUid: w.a.snapshotUid }) },
  "snapshots.importGit": {
    access: "member",
    input: (w) => ({ projectUid: w.a.projectUid, url: "https://git.example.test/acme/app.git" }),
    note: "Without a token: a member may not make the server reuse the stored one elsewhere (see git-urls.test.ts).",
  },
  "snapshots.importPath": { access: "owner", input: (w) => ({ projectUid: w.a.projectUid, path: "/etc" }) },
  "snapshots.tree": { access: "viewer", input: (w) => ({ snapshotUid: w.a.snapshotUid }) },
  "snapshots.file": { access: "viewer", input: (w) => ({ snapshotUid: w.a.snapshotUid, path: "src/app.ts" }) },
  "snapshots.outline": { access: "viewer", input: (w) => ({ snapshotUid: w.a.snapshotUid, path: "src/app.ts" }) },
  "snapshots.search": { access: "viewer", input: (w) => ({ snapshotUid: w.a.snapshotUid, query: w.canaries.tagA }) },
  "snapshots.findings": { access: "viewer", input: (w) => ({ snapshotUid: w.a.snapshotUid }) },
};
