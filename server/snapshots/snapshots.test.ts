import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inviteAndSignUp, signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import { buildZip } from "../../test/helpers/zip.ts";
import { makeFixtureRepo, startGitDaemon, type GitDaemon } from "../codebase/ingest/test-support.ts";

let server: TestServer;
let owner: TestUser;
let member: TestUser;
let viewer: TestUser;
let sourceDir: string;

type Snapshot = {
  uid: string;
  status: string;
  progress: number;
  message: string | null;
  sourceKind: string;
  summary: {
    files: number;
    languages: Record<string, { files: number }>;
    symbols: number;
    findingsBySeverity: Record<string, number>;
    tools: { tool: string; status: string }[];
  } | null;
};

const APP_TS = `export function greet(name: string): string {\n  return "hello " + name;\n}\n\nexport class Greeter {\n  hi() {\n    return greet("x");\n  }\n}\n`;
const CONFIG_JS = `const awsKey = "AKIAIOSFODNN7EXAMPLQ";\nmodule.exports = { awsKey };\n`;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server.url, { name: "Owner" });
  member = await inviteAndSignUp(owner, "member", "Member");
  viewer = await inviteAndSignUp(owner, "viewer", "Viewer");
  sourceDir = await mkdtemp(path.join(os.tmpdir(), "argus-src-"));
  await mkdir(path.join(sourceDir, "src"), { recursive: true });
  await writeFile(path.join(sourceDir, "src/app.ts"), APP_TS);
  await writeFile(path.join(sourceDir, "config.js"), CONFIG_JS);
});

afterAll(async () => {
  await server?.stop();
  if (sourceDir) await rm(sourceDir, { recursive: true, force: true });
});

async function newProject(user: TestUser = owner): Promise<string> {
  const uid = crypto.randomUUID();
  await user.client.ok("mutate", "projects.create", {
    workspaceId: owner.workspaceId,
    uid,
    name: `p-${uid.slice(0, 6)}`,
  });
  return uid;
}

function upload(
  user: TestUser,
  projectUid: string,
  kind: string,
  body: BodyInit,
  headers: Record<string, string> = {},
) {
  return fetch(`${server.url}/api/projects/${projectUid}/upload?kind=${kind}`, {
    method: "POST",
    headers: { cookie: user.client.cookie, ...headers },
    body,
  });
}

async function settled(user: TestUser, snapshotUid: string): Promise<Snapshot> {
  await server.services.queue.idle();
  return user.client.ok<Snapshot>("query", "snapshots.get", { snapshotUid });
}

describe("importing code", () => {
  it("uploaded files keep their paths, get indexed, and their code, outline and findings can be read", async () => {
    const projectUid = await newProject();
    const form = new FormData();
    form.append("file", new Blob([APP_TS]), "src/app.ts");
    form.append("file", new Blob([CONFIG_JS]), "config.js");
    const res = await upload(member, projectUid, "files", form);
    expect(res.status).toBe(201);
    const { snapshotUid } = (await res.json()) as { snapshotUid: string };
    const snap = await settled(viewer, snapshotUid);
    expect(snap).toMatchObject({ status: "ready", progress: 1, sourceKind: "files" });
    expect(snap.summary!.files).toBe(2);
    expect(snap.summary!.languages).toHaveProperty("typescript");
    expect(snap.summary!.symbols).toBeGreaterThanOrEqual(3);
    // The pre-pass ran Argus's rules and ESLint (built-in security config); missing ruff/bandit are recorded, not fatal.
    expect(snap.summary!.tools).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tool: "argus", status: "ran" }),
        expect.objectContaining({ tool: "eslint", status: "ran" }),
      ]),
    );

    const tree = await viewer.client.ok<{ path: string }[]>("query", "snapshots.tree", { snapshotUid });
    expect(tree.map((f) => f.path).sort()).toEqual(["config.js", "src/app.ts"]);
    const file = await viewer.client.ok<{ content: string }>("query", "snapshots.file", {
      snapshotUid,
      path: "src/app.ts",
    });
    expect(file.content).toBe(APP_TS);
    const outline = await viewer.client.ok<{ name: string; kind: string; startLine: number; endLine: number }[]>(
      "query",
      "snapshots.outline",
      { snapshotUid, path: "src/app.ts" },
    );
    expect(outline).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "greet", kind: "function", startLine: 1, endLine: 3 }),
        expect.objectContaining({ name: "Greeter", kind: "class", startLine: 5 }),
      ]),
    );
    const findings = await viewer.client.ok<{ file: string; ruleId: string; startLine: number }[]>(
      "query",
      "snapshots.findings",
      { snapshotUid },
    );
    expect(findings).toEqual(expect.arrayContaining([expect.objectContaining({ file: "config.js", startLine: 1 })]));

    const project = await viewer.client.ok<{ status: string; sourceKind: string }>("query", "projects.get", {
      uid: projectUid,
    });
    expect(project).toMatchObject({ status: "ready", sourceKind: "files" });

    // Code search: hybrid by default, full text finds the split identifier, hits carry line ranges.
    const hits = await viewer.client.ok<
      { file: string; startLine: number; endLine: number; symbolPath: string | null }[]
    >("query", "snapshots.search", { snapshotUid, query: "greet" });
    expect(hits[0]).toMatchObject({ file: "src/app.ts", startLine: 1 });
    const ft = await viewer.client.ok<{ file: string }[]>("query", "snapshots.search", {
      snapshotUid,
      query: "aws key",
      mode: "fulltext",
    });
    expect(ft[0]?.file).toBe("config.js");
    const empty = await viewer.client.query("snapshots.search", { snapshotUid, query: "   " });
    expect(empty.status).toBe(400);
  });

  it("a zip upload with a single top folder is unpacked without it", async () => {
    const projectUid = await newProject();
    const zip = buildZip([
      { name: "repo-main/src/app.ts", data: APP_TS },
      { name: "repo-main/README.md", data: "# demo\n" },
    ]);
    const res = await upload(owner, projectUid, "zip", new Uint8Array(zip), { "x-file-name": "repo.zip" });
    expect(res.status).toBe(201);
    const { snapshotUid } = (await res.json()) as { snapshotUid: string };
    const tree =
      (await settled(owner, snapshotUid),
      await owner.client.ok<{ path: string }[]>("query", "snapshots.tree", { snapshotUid }));
    expect(tree.map((f) => f.path).sort()).toEqual(["README.md", "src/app.ts"]);
  });

  it("a zip-slip archive is refused with a reason, and the project keeps no snapshot files", async () => {
    const projectUid = await newProject();
    const res = await upload(owner, projectUid, "zip", new Uint8Array(buildZip([{ name: "../evil.txt", data: "x" }])));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/\.\./);
    const [snap] = await owner.client.ok<Snapshot[]>("query", "snapshots.list", { projectUid });
    expect(snap).toMatchObject({ status: "failed" });
    expect(snap!.message).toMatch(/\.\./);
  });

  it("a client that hangs up mid-upload fails the import instead of leaving the project importing", async () => {
    const projectUid = await newProject();
    const url = new URL(server.url);
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise((r) => socket.once("connect", r));
    const b = "XyZ";
    socket.write(
      `POST /api/projects/${projectUid}/upload?kind=files HTTP/1.1\r\nHost: ${url.host}\r\nCookie: ${owner.client.cookie}\r\n` +
        `Content-Type: multipart/form-data; boundary=${b}\r\nContent-Length: 10000000\r\n\r\n` +
        `--${b}\r\nContent-Disposition: form-data; name="files"; filename="src/a.ts"\r\nContent-Type: text/plain\r\n\r\n` +
        "export const a = 1;\n".repeat(5000),
    );
    const snapshots = () => owner.client.ok<Snapshot[]>("query", "snapshots.list", { projectUid });
    await expect.poll(async () => (await snapshots()).length, { timeout: 5000 }).toBe(1);
    socket.destroy();
    await expect.poll(async () => (await snapshots())[0]!.status, { timeout: 10_000 }).toBe("failed");
    const project = await owner.client.ok<{ status: string }>("query", "projects.get", { uid: projectUid });
    expect(project.status).not.toBe("ingesting");
  });

  it("a viewer may not upload (403) and an anonymous upload is 401", async () => {
    const projectUid = await newProject();
    const form = new FormData();
    form.append("file", new Blob(["x"]), "a.txt");
    expect((await upload(viewer, projectUid, "files", form)).status).toBe(403);
    expect(
      (await fetch(`${server.url}/api/projects/${projectUid}/upload?kind=files`, { method: "POST", body: form }))
        .status,
    ).toBe(401);
    expect((await owner.client.ok<Snapshot[]>("query", "snapshots.list", { projectUid })).length).toBe(0);
  });

  it("a folder on the server imports for the owner only", async () => {
    const projectUid = await newProject();
    expect((await member.client.mutate("snapshots.importPath", { projectUid, path: sourceDir })).status).toBe(403);
    const started = await owner.client.ok<Snapshot>("mutate", "snapshots.importPath", { projectUid, path: sourceDir });
    const snap = await settled(owner, started.uid);
    expect(snap.status).toBe("ready");
    expect(snap.summary!.files).toBe(2);
    const missing = await owner.client.ok<Snapshot>("mutate", "snapshots.importPath", {
      projectUid,
      path: path.join(sourceDir, "nope"),
    });
    const failed = await settled(owner, missing.uid);
    expect(failed.status).toBe("failed");
    expect(failed.message).toMatch(/no folder/i);
    // The failed re-import leaves the earlier snapshot in charge.
    expect((await owner.client.ok<{ status: string }>("query", "projects.get", { uid: projectUid })).status).toBe(
      "ready",
    );
  });

  it("a git repository imports at a branch; a refresh makes a new snapshot of the same repository", async () => {
    let daemon: GitDaemon | undefined;
    try {
      daemon = await startGitDaemon();
      const repo = makeFixtureRepo(path.join(daemon.base, "app"));
      const projectUid = await newProject(member);
      const first = await member.client.ok<Snapshot & { commit: string }>("mutate", "snapshots.importGit", {
        projectUid,
        url: `${daemon.url}/app`,
        ref: "dev",
      });
      const snap = (await settled(member, first.uid)) as Snapshot & { commit: string };
      expect(snap.status).toBe("ready");
      expect(snap.commit).toBe(repo.c3);
      const project = await member.client.ok<{ gitUrl: string; gitRef: string; hasGitToken: boolean }>(
        "query",
        "projects.get",
        { uid: projectUid },
      );
      expect(project).toMatchObject({ gitUrl: `${daemon.url}/app`, gitRef: "dev", hasGitToken: false });
      const again = await member.client.ok<Snapshot>("mutate", "snapshots.importGit", {
        projectUid,
        url: project.gitUrl,
        ref: project.gitRef,
      });
      await settled(member, again.uid);
      const list = await member.client.ok<Snapshot[]>("query", "snapshots.list", { projectUid });
      expect(list.map((s) => s.status)).toEqual(["ready", "ready"]);
    } finally {
      await daemon?.stop();
    }
  });

  it("dangerous git URLs are refused before anything runs", async () => {
    const projectUid = await newProject();
    for (const url of ["ext::sh -c touch% /tmp/pwned", "file:///etc", "--upload-pack=touch /tmp/x"]) {
      const r = await owner.client.mutate("snapshots.importGit", { projectUid, url });
      expect(r.status, url).toBe(400);
    }
    expect((await owner.client.ok<Snapshot[]>("query", "snapshots.list", { projectUid })).length).toBe(0);
  });

  it("reading a file outside the snapshot is refused", async () => {
    const projectUid = await newProject();
    const started = await owner.client.ok<Snapshot>("mutate", "snapshots.importPath", { projectUid, path: sourceDir });
    await settled(owner, started.uid);
    const r = await owner.client.query("snapshots.file", { snapshotUid: started.uid, path: "../../../../etc/passwd" });
    expect(r.status).toBe(400);
  });
});
