import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { inviteAndSignUp, signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import { buildZip } from "../../test/helpers/zip.ts";
import {
  hasOpenssl,
  makeFixtureRepo,
  makeTlsFixture,
  startGitDaemon,
  startHttpsRecorder,
  type GitDaemon,
} from "../codebase/ingest/test-support.ts";
import { loadConfig } from "../config.ts";

let server: TestServer;
let owner: TestUser;
let member: TestUser;
let viewer: TestUser;
let importRoot: string;
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
  // The git fixtures listen on 127.0.0.1, which only an operator's allow list lets imports reach; server
  // folders may come from importRoot — and, to prove it is refused anyway, from DATA_DIR.
  importRoot = await mkdtemp(path.join(os.tmpdir(), "argus-import-root-"));
  const t = await createTestConfig({ GIT_ALLOWED_HOSTS: "127.0.0.1" });
  const roots = [importRoot, t.config.dataDir].join(path.delimiter);
  server = await startTestServer({ ...t, config: loadConfig({ ...t.env, IMPORT_PATH_ROOTS: roots }) });
  owner = await signUp(server.url, { name: "Owner" });
  member = await inviteAndSignUp(owner, "member", "Member");
  viewer = await inviteAndSignUp(owner, "viewer", "Viewer");
  sourceDir = path.join(importRoot, "project");
  await mkdir(path.join(sourceDir, "src"), { recursive: true });
  await writeFile(path.join(sourceDir, "src/app.ts"), APP_TS);
  await writeFile(path.join(sourceDir, "config.js"), CONFIG_JS);
});

afterAll(async () => {
  await server?.stop();
  if (importRoot) await rm(importRoot, { recursive: true, force: true });
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
    const missing = await owner.client.mutate("snapshots.importPath", {
      projectUid,
      path: path.join(sourceDir, "nope"),
    });
    expect(missing.status).toBe(400);
    expect(missing.error?.message).toMatch(/no folder/i);
    // The refused re-import leaves the earlier snapshot in charge.
    expect((await owner.client.ok<{ status: string }>("query", "projects.get", { uid: projectUid })).status).toBe(
      "ready",
    );
    expect((await owner.client.ok<Snapshot[]>("query", "snapshots.list", { projectUid })).length).toBe(1);
  });

  it("a server folder must lie inside the operator's IMPORT_PATH_ROOTS, and DATA_DIR never does", async () => {
    const projectUid = await newProject();
    const dataDir = server.services.config.dataDir;
    const refused = async (p: string) => {
      const r = await owner.client.mutate("snapshots.importPath", { projectUid, path: p });
      expect(r.status, p).toBe(400);
      return r.error!.message;
    };
    expect(await refused("/")).toMatch(/outside the folders the operator allows for import \(IMPORT_PATH_ROOTS: /);
    expect(await refused("/etc")).toMatch(/outside the folders/);
    expect(await refused(`${sourceDir}/../../etc`)).toMatch(/outside the folders/);
    expect(await refused(dataDir)).toMatch(/Argus's own data folder \(DATA_DIR\)/);
    expect(await refused(path.join(dataDir, "projects"))).toMatch(/DATA_DIR|no folder/);
    expect(await refused("relative/path")).toMatch(/absolute path/);
    // Nothing was started, nothing was read.
    expect((await owner.client.ok<Snapshot[]>("query", "snapshots.list", { projectUid })).length).toBe(0);
  });

  it("server-folder import is off unless the operator lists IMPORT_PATH_ROOTS", async () => {
    const plain = await startTestServer(await createTestConfig());
    try {
      const boss = await signUp(plain.url, { name: "Boss" });
      const projectUid = crypto.randomUUID();
      await boss.client.ok("mutate", "projects.create", { workspaceId: boss.workspaceId, uid: projectUid, name: "p" });
      const r = await boss.client.mutate("snapshots.importPath", { projectUid, path: sourceDir });
      expect(r.status).toBe(400);
      expect(r.error?.message).toBe(
        "Importing a folder from the server is turned off. The operator can turn it on by listing the folders that may be imported in IMPORT_PATH_ROOTS (e.g. IMPORT_PATH_ROOTS=/srv/code) and restarting Argus; until then, upload the code or import it from git.",
      );
    } finally {
      await plain.stop();
    }
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
  }, 60_000); // two full imports (clone, index, ESLint): slow on a busy 2-core machine

  it("git URLs that lead to internal addresses are refused before anything is queued or connected", async () => {
    const projectUid = await newProject(member);
    let connections = 0;
    const target = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
    try {
      const port = (target.address() as net.AddressInfo).port;
      for (const url of [
        `git://localhost:${port}/app`, // 127.0.0.1 is allowed in this server's config; "localhost" is not
        "https://169.254.169.254/latest/meta-data/",
        "https://10.0.0.1/o/r.git",
        "git://0x0a000001/app", // 10.0.0.1 spelled the way inet_aton reads it
      ]) {
        const r = await member.client.mutate("snapshots.importGit", { projectUid, url });
        expect(r.status, url).toBe(400);
        expect(r.error?.message, url).toMatch(
          /only fetches repositories from hosts on the public internet.*GIT_ALLOWED_HOSTS/,
        );
      }
      expect(connections).toBe(0);
      expect((await member.client.ok<Snapshot[]>("query", "snapshots.list", { projectUid })).length).toBe(0);
    } finally {
      await new Promise((r) => target.close(r));
    }
  });

  it.skipIf(!hasOpenssl)(
    "a stored access token is sent only to the origin it was given for; a new origin needs its own",
    async () => {
      const tls = await makeTlsFixture();
      const savedCa = process.env.GIT_SSL_CAINFO;
      process.env.GIT_SSL_CAINFO = tls.caFile;
      const first = await startHttpsRecorder(tls);
      const other = await startHttpsRecorder(tls);
      try {
        const TOKEN = "ghp_OwnersPrivateToken1234";
        const auth = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`;
        const projectUid = await newProject();
        const importGit = async (user: TestUser, url: string, token?: string) =>
          settled(
            user,
            (await user.client.ok<Snapshot>("mutate", "snapshots.importGit", { projectUid, url, token })).uid,
          );
        const hasToken = async () =>
          (await member.client.ok<{ hasGitToken: boolean }>("query", "projects.get", { uid: projectUid })).hasGitToken;

        // The owner gives a token for https://127.0.0.1:<first> (the fixture answers 404: the import fails).
        await importGit(owner, `https://127.0.0.1:${first.port}/o/private.git`, TOKEN);
        expect(first.requests.map((h) => h.authorization)).toEqual([auth]);
        expect(await hasToken()).toBe(true);
        const row = await server.services.db.project.findUniqueOrThrow({ where: { uid: projectUid } });
        expect(row.gitTokenOrigin).toBe(`https://127.0.0.1:${first.port}`);

        // A member refreshes another repository on the same origin: the stored token goes with it.
        await importGit(member, `https://127.0.0.1:${first.port}/o/other.git`);
        expect(first.requests.at(-1)?.authorization).toBe(auth);

        // A member points the project at another origin, without a token: none is sent there, and the
        // stored one is forgotten (it would never be sent again).
        await importGit(member, `https://127.0.0.1:${other.port}/attacker/r.git`);
        expect(other.requests.length).toBeGreaterThan(0);
        expect(other.requests.map((h) => h.authorization)).toEqual(other.requests.map(() => undefined));
        expect(await hasToken()).toBe(false);
        await importGit(member, `https://127.0.0.1:${first.port}/o/private.git`);
        expect(first.requests.at(-1)?.authorization).toBeUndefined();

        // A token stored before origins were recorded is never sent anywhere.
        await importGit(owner, `https://127.0.0.1:${first.port}/o/private.git`, TOKEN);
        await server.services.db.project.update({ where: { uid: projectUid }, data: { gitTokenOrigin: null } });
        const before = first.requests.length;
        await importGit(member, `https://127.0.0.1:${first.port}/o/private.git`);
        expect(first.requests.length).toBeGreaterThan(before);
        expect(first.requests.slice(before).map((h) => h.authorization)).toEqual(
          first.requests.slice(before).map(() => undefined),
        );

        // A token comes with an https URL only.
        const ssh = await member.client.mutate("snapshots.importGit", {
          projectUid,
          url: "git://127.0.0.1:1/r",
          token: TOKEN,
        });
        expect(ssh.status).toBe(400);
        expect(ssh.error?.message).toMatch(/only with an https URL/);
      } finally {
        if (savedCa === undefined) delete process.env.GIT_SSL_CAINFO;
        else process.env.GIT_SSL_CAINFO = savedCa;
        await first.stop();
        await other.stop();
        await tls.cleanup();
      }
    },
    60_000, // six imports in a row
  );

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
