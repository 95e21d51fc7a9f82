/** Knowledge bases over tRPC and the upload route, against the real server (SQLite or PostgreSQL). */
import { readFile, stat, writeFile, readdir } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildDocx, buildPdf } from "../../knowledge/parse/test-support.ts";
import { baseDirs, knowledgeIndexName, searchStoreUri } from "../../knowledge/storage.ts";
import { connect, openChunkIndex } from "../../retrieval/store/index.ts";
import { signUpInNewWorkspace, type TestUser } from "../../../test/helpers/server.ts";
import { startServerWithTeam } from "./test-support.ts";

interface Base {
  uid: string;
  name: string;
  description: string | null;
  status: string;
  message: string | null;
  progress: number;
  documents: number;
  readyDocuments: number;
  chunks: number;
  chunking: {
    chunk_backend: string;
    chunk_size: number;
    tokenizer_or_token_counter: string;
    chunk_backend_configs: { sentence: { chunk_overlap: number } };
  };
}
interface Doc {
  uid: string;
  name: string;
  status: string;
  message: string | null;
  chunkCount: number;
  bytes: number;
  mime: string;
}
interface Hit {
  match: "strong" | "weak";
  relevance: number;
  documentUid: string;
  documentName: string;
  snippet: string;
  startLine: number;
  score: number;
}
interface UploadReply {
  message?: string;
  documents: Doc[];
  rejected: { name: string; reason: string; message: string }[];
}

const { server, owner, member, viewer } = await startServerWithTeam();

const GUIDE_MD =
  "# Deployment guide\n\nRun the **orchestrator** with `npm start`. Set PORT to choose the port.\n\nThe [health check](https://x.test/health) answers on /api/health.\n";
const NOTES_TXT =
  "Meeting notes.\nThe quarterly budget for lighthouse maintenance was approved.\nNext meeting in March.\n";

async function createBase(
  name = `kb-${Math.random().toString(36).slice(2, 8)}`,
  user = member,
  extra: Record<string, unknown> = {},
): Promise<Base> {
  return user.client.ok<Base>("mutate", "knowledge.create", { workspaceId: owner.workspaceId, name, ...extra });
}

function upload(user: TestUser, baseUid: string, files: [name: string, body: string | Uint8Array][]) {
  const form = new FormData();
  for (const [name, body] of files)
    form.append("file", new Blob([typeof body === "string" ? body : new Uint8Array(body)]), name);
  return fetch(`${server.url}/api/knowledge/${baseUid}/upload`, {
    method: "POST",
    headers: { cookie: user.client.cookie },
    body: form,
  });
}

/** The same multipart request as upload(), sent with node:http on a connection used for nothing else. */
async function uploadOnOwnConnection(
  user: TestUser,
  baseUid: string,
  files: [name: string, body: string | Uint8Array][],
): Promise<{ status: number; json: () => Promise<unknown> }> {
  const form = new FormData();
  for (const [name, body] of files)
    form.append("file", new Blob([typeof body === "string" ? body : new Uint8Array(body)]), name);
  const encoded = new Response(form);
  const body = Buffer.from(await encoded.arrayBuffer());
  const url = new URL(`${server.url}/api/knowledge/${baseUid}/upload`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: "POST",
        agent: false,
        headers: {
          cookie: user.client.cookie,
          "content-type": encoded.headers.get("content-type")!,
          "content-length": body.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, json: async () => JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function uploadOk(user: TestUser, baseUid: string, files: [string, string | Uint8Array][]): Promise<UploadReply> {
  const res = await upload(user, baseUid, files);
  const body = (await res.json()) as UploadReply;
  if (res.status !== 201) throw new Error(`upload → ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

async function settled(baseUid: string, user: TestUser = viewer): Promise<{ base: Base; docs: Doc[] }> {
  await server.services.queue.idle();
  const base = await user.client.ok<Base>("query", "knowledge.get", { uid: baseUid });
  const docs = await user.client.ok<Doc[]>("query", "knowledge.documents", { uid: baseUid });
  return { base, docs };
}

const search = (user: TestUser, uid: string, query: string, mode = "hybrid") =>
  user.client.query<Hit[]>("knowledge.search", { uid, query, mode });
const byName = (docs: Doc[], name: string) => docs.find((d) => d.name === name)!;

describe("knowledge bases", () => {
  it("uploads every supported format, refuses the unreadable ones per document, and searches the rest", async () => {
    const base = await createBase("Handbook");
    expect(base).toMatchObject({
      name: "Handbook",
      status: "empty",
      documents: 0,
      chunking: { chunk_backend: "sentence", chunk_size: 512, tokenizer_or_token_counter: "character" },
    });
    expect(base).not.toHaveProperty("id");

    const reply = await uploadOk(member, base.uid, [
      ["guide.md", GUIDE_MD],
      ["notes.txt", NOTES_TXT],
      [
        "page.html",
        "<html><head><title>Intranet</title><script>var tracking = 'zebra';</script></head><body><p>The cafeteria opens at noon.</p></body></html>",
      ],
      ["paper.pdf", buildPdf(["Photosynthesis converts light into chemical energy."], { title: "Biology" })],
      ["report.docx", buildDocx(["# Annual report", "Revenue from telescopes doubled."])],
      ["tool.exe", "MZ binary"],
      ["locked.pdf", buildPdf(["classified"], { encrypted: true })],
      ["broken.pdf", buildPdf(["fine text"]).subarray(0, 50)],
      ["scan.pdf", buildPdf([""])],
    ]);
    expect(reply.documents.map((d) => d.name).sort()).toEqual([
      "broken.pdf",
      "guide.md",
      "locked.pdf",
      "notes.txt",
      "page.html",
      "paper.pdf",
      "report.docx",
      "scan.pdf",
      "tool.exe",
    ]);
    expect(reply.rejected).toEqual([]);
    // Unsupported types are refused at once; the rest wait for the indexing job.
    expect(byName(reply.documents, "tool.exe")).toMatchObject({
      status: "skipped",
      message: expect.stringMatching(/"\.exe" files are not supported/),
    });
    expect(byName(reply.documents, "guide.md")).toMatchObject({
      status: "pending",
      mime: "text/markdown",
      bytes: Buffer.byteLength(GUIDE_MD),
    });

    const { base: done, docs } = await settled(base.uid);
    expect(done).toMatchObject({ status: "ready", progress: 1, message: null, documents: 9, readyDocuments: 5 });
    for (const name of ["guide.md", "notes.txt", "page.html", "paper.pdf", "report.docx"])
      expect(byName(docs, name)).toMatchObject({ status: "ready", message: null, chunkCount: expect.any(Number) });
    expect(docs.filter((d) => d.status === "ready").every((d) => d.chunkCount >= 1)).toBe(true);
    expect(done.chunks).toBe(docs.reduce((n, d) => n + d.chunkCount, 0));
    expect(byName(docs, "locked.pdf")).toMatchObject({
      status: "skipped",
      chunkCount: 0,
      message: expect.stringMatching(/password-protected/),
    });
    expect(byName(docs, "scan.pdf")).toMatchObject({
      status: "skipped",
      message: expect.stringMatching(/no text layer/),
    });
    expect(byName(docs, "broken.pdf")).toMatchObject({
      status: "failed",
      message: expect.stringMatching(/could not be read as a PDF/),
    });

    // A viewer searches; each format's words are found in the right document.
    for (const [query, name] of [
      ["orchestrator", "guide.md"],
      ["lighthouse budget", "notes.txt"],
      ["cafeteria", "page.html"],
      ["photosynthesis", "paper.pdf"],
      ["telescopes", "report.docx"],
    ] as const) {
      const r = await search(viewer, base.uid, query);
      expect(r.status, query).toBe(200);
      expect(r.data[0], query).toMatchObject({
        documentName: name,
        snippet: expect.stringMatching(new RegExp(query.split(" ")[0]!, "i")),
        match: "strong",
      });
      // Ranked and cut by relevance: only strong matches, not every document of the base.
      expect(
        r.data.every((h) => h.match === "strong"),
        query,
      ).toBe(true);
    }
    // A question the documents do not answer: no strong match, only the nearest three, marked weak.
    const none = await search(viewer, base.uid, "best pizza dough recipe");
    expect(none.data.length).toBeGreaterThan(0);
    expect(none.data.length).toBeLessThanOrEqual(3);
    expect(none.data.every((h) => h.match === "weak" && h.relevance < 0.9)).toBe(true);
    // Markup and scripts were not indexed.
    expect((await search(viewer, base.uid, "zebra", "fulltext")).data).toEqual([]);
    // The index was built with the local embedder (fitted on this base, prose profile), and says so.
    const built = await server.services.db.knowledgeBase.findUniqueOrThrow({ where: { uid: base.uid } });
    expect(built.embedder).toBe("local");
    const store0 = await connect(searchStoreUri(server.services.config));
    try {
      const index = (await openChunkIndex(store0, knowledgeIndexName(built.id)))!;
      expect(index.embedder).toMatchObject({ name: "local", params: { profile: "prose" } });
      index.close();
    } finally {
      store0.close();
    }
    expect((await search(viewer, base.uid, "https", "fulltext")).data).toEqual([]);

    // Progress and document outcomes were published to the base's room.
    const events = await server.services.events.history(`kb:${base.uid}`);
    const types = events.map((e) => e.type);
    expect(types).toContain("kb.progress");
    expect(types[types.length - 1]).toBe("kb.indexed");
    expect(events.filter((e) => e.type === "kb.document").map((e) => (e.payload as { name: string }).name)).toEqual(
      expect.arrayContaining(["locked.pdf", "scan.pdf", "broken.pdf", "guide.md"]),
    );
    const progress = events
      .filter((e) => e.type === "kb.progress")
      .map((e) => (e.payload as { progress: number }).progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  }, 60_000); // every format parsed, then a full index build (the local embedder is fitted): slow on a busy machine

  it("refuses the same bytes twice in one base (whatever the name), but not in another base", async () => {
    const base = await createBase();
    await uploadOk(member, base.uid, [["notes.txt", NOTES_TXT]]);
    const again = await upload(member, base.uid, [["copy of notes.txt", NOTES_TXT]]);
    expect(again.status).toBe(409);
    const body = (await again.json()) as UploadReply;
    expect(body.message).toBe("copy of notes.txt is already in this base (as “notes.txt”).");
    expect(body.rejected).toEqual([{ name: "copy of notes.txt", reason: "duplicate", message: body.message }]);

    // Mixed: the new file is added, the duplicate reported.
    const mixed = await uploadOk(member, base.uid, [
      ["notes.txt", NOTES_TXT],
      ["other.md", "# Other\n\nDifferent words entirely."],
    ]);
    expect(mixed.documents.map((d) => d.name)).toEqual(["other.md"]);
    expect(mixed.rejected.map((r) => r.reason)).toEqual(["duplicate"]);

    const other = await createBase();
    await uploadOk(member, other.uid, [["notes.txt", NOTES_TXT]]);
    await server.services.queue.idle();
    expect((await settled(base.uid)).docs).toHaveLength(2);
  });

  it("uploads that arrive while the base is indexing are indexed by one more run after it", async () => {
    const base = await createBase();
    await uploadOk(member, base.uid, [["first.txt", "The first document mentions quasars."]]);
    // The first run is queued or going; these two must not start parallel writers, nor be lost.
    await Promise.all([
      uploadOk(member, base.uid, [["second.txt", "The second mentions pulsars."]]),
      uploadOk(member, base.uid, [["third.txt", "The third mentions nebulae."]]),
    ]);
    const { base: done, docs } = await settled(base.uid);
    expect(done).toMatchObject({ status: "ready", readyDocuments: 3 });
    expect(docs.every((d) => d.status === "ready")).toBe(true);
    for (const [word, name] of [
      ["quasars", "first.txt"],
      ["pulsars", "second.txt"],
      ["nebulae", "third.txt"],
    ]) {
      expect((await search(viewer, base.uid, word!, "fulltext")).data.map((h) => h.documentName)).toEqual([name]);
    }
  });

  it("re-chunks with new UltraRAG parameters without re-uploading", async () => {
    const base = await createBase();
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about topic ${i % 7}.`).join(" ");
    await uploadOk(member, base.uid, [["long.txt", long]]);
    const before = byName((await settled(base.uid)).docs, "long.txt").chunkCount;

    const r = await member.client.mutate<Base>("knowledge.setChunking", {
      uid: base.uid,
      chunking: {
        chunk_backend: "token",
        tokenizer_or_token_counter: "word",
        chunk_size: 20,
        chunk_backend_configs: { token: { chunk_overlap: 5 } },
      },
    });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({
      status: "indexing",
      chunking: { chunk_backend: "token", chunk_size: 20, tokenizer_or_token_counter: "word" },
    });
    const { base: after, docs } = await settled(base.uid);
    expect(after.status).toBe("ready");
    // 40 sentences × 7 words = 280 words; windows of 20 words start every 15 (0, 15 … 270) → 19 chunks.
    expect(byName(docs, "long.txt").chunkCount).toBe(19);
    expect(byName(docs, "long.txt").chunkCount).not.toBe(before);
    expect((await search(viewer, base.uid, "topic")).data.length).toBeGreaterThan(0);
  });

  it("a failed rebuild marks the base failed and leaves the previous index searchable", async () => {
    const base = await createBase();
    await uploadOk(member, base.uid, [["notes.txt", NOTES_TXT]]);
    await settled(base.uid);
    // Damage the stored text of the document behind the server's back.
    const textDir = baseDirs(
      server.services.config.dataDir,
      (await server.services.db.knowledgeBase.findUniqueOrThrow({ where: { uid: base.uid } })).id,
    ).text;
    const [file] = await readdir(textDir);
    await writeFile(path.join(textDir, file!), "{ not json");

    expect((await member.client.mutate<Base>("knowledge.rebuild", { uid: base.uid })).status).toBe(200);
    const { base: failed } = await settled(base.uid);
    expect(failed).toMatchObject({
      status: "failed",
      message: expect.stringMatching(/Search still uses the previous index/),
    });
    const hits = await search(viewer, base.uid, "lighthouse");
    expect(hits.status).toBe(200);
    expect(hits.data[0]).toMatchObject({ documentName: "notes.txt" });
  });

  it("deleting a document removes it from the results; deleting the base removes files, index and events", async () => {
    const base = await createBase();
    await uploadOk(member, base.uid, [
      ["notes.txt", NOTES_TXT],
      ["guide.md", GUIDE_MD],
    ]);
    const { docs } = await settled(base.uid);
    expect((await search(viewer, base.uid, "lighthouse", "fulltext")).data).toHaveLength(1);

    expect(
      (await viewer.client.mutate("knowledge.deleteDocument", { documentUid: byName(docs, "notes.txt").uid })).status,
    ).toBe(403);
    expect(
      (await member.client.mutate("knowledge.deleteDocument", { documentUid: byName(docs, "notes.txt").uid })).status,
    ).toBe(200);
    // Gone from results at once (before the rebuild has run)…
    expect((await search(viewer, base.uid, "lighthouse", "fulltext")).data).toEqual([]);
    const after = await settled(base.uid);
    expect(after.docs.map((d) => d.name)).toEqual(["guide.md"]);
    expect(after.base).toMatchObject({ status: "ready", documents: 1 });
    expect((await search(viewer, base.uid, "orchestrator")).data[0]).toMatchObject({ documentName: "guide.md" });

    const row = await server.services.db.knowledgeBase.findUniqueOrThrow({ where: { uid: base.uid } });
    const root = baseDirs(server.services.config.dataDir, row.id).root;
    expect((await stat(root)).isDirectory()).toBe(true);
    expect((await viewer.client.mutate("knowledge.delete", { uid: base.uid })).status).toBe(403);
    expect((await member.client.mutate("knowledge.delete", { uid: base.uid })).status).toBe(200);
    await expect(stat(root)).rejects.toMatchObject({ code: "ENOENT" });
    const store = await connect(searchStoreUri(server.services.config));
    try {
      expect(await openChunkIndex(store, knowledgeIndexName(row.id))).toBeNull();
    } finally {
      store.close();
    }
    expect(await server.services.events.history(`kb:${base.uid}`)).toEqual([]);
    expect(await server.services.db.knowledgeDocument.count({ where: { knowledgeBaseId: row.id } })).toBe(0);
    expect((await viewer.client.query("knowledge.get", { uid: base.uid })).status).toBe(404);
  });

  it("deleting a base while it is being indexed leaves no files or index behind", async () => {
    const base = await createBase();
    await uploadOk(member, base.uid, [
      ["a.md", GUIDE_MD],
      ["b.txt", NOTES_TXT],
    ]);
    const row = await server.services.db.knowledgeBase.findUniqueOrThrow({ where: { uid: base.uid } });
    await member.client.ok("mutate", "knowledge.delete", { uid: base.uid });
    await server.services.queue.idle();
    await expect(stat(baseDirs(server.services.config.dataDir, row.id).root)).rejects.toMatchObject({ code: "ENOENT" });
    const store = await connect(searchStoreUri(server.services.config));
    try {
      expect(await openChunkIndex(store, knowledgeIndexName(row.id))).toBeNull();
    } finally {
      store.close();
    }
  });

  it("deleting the last document empties the base", async () => {
    const base = await createBase();
    const { documents } = await uploadOk(member, base.uid, [["one.txt", "just one document"]]);
    await settled(base.uid);
    await member.client.ok("mutate", "knowledge.deleteDocument", { documentUid: documents[0]!.uid });
    expect((await settled(base.uid)).base).toMatchObject({ status: "empty", documents: 0 });
    expect((await search(viewer, base.uid, "document")).error?.message).toMatch(/no searchable documents yet/);
  });
});

describe("roles", () => {
  it("viewers list, read and search; only members and owners create, upload, change and delete", async () => {
    const base = await createBase("Shared");
    await uploadOk(member, base.uid, [["notes.txt", NOTES_TXT]]);
    await settled(base.uid);
    expect(
      (await viewer.client.ok<Base[]>("query", "knowledge.list", { workspaceId: owner.workspaceId })).map(
        (b) => b.name,
      ),
    ).toContain("Shared");
    expect((await search(viewer, base.uid, "budget")).status).toBe(200);

    const create = await viewer.client.mutate("knowledge.create", { workspaceId: owner.workspaceId, name: "Nope" });
    expect(create.status).toBe(403);
    expect(create.error?.message).toMatch(/only a member or owner can make changes here/);
    const up = await upload(viewer, base.uid, [["x.txt", "viewer text"]]);
    expect(up.status).toBe(403);
    expect(((await up.json()) as { message: string }).message).toMatch(/only a member or owner/);
    for (const [path, input] of [
      ["knowledge.update", { uid: base.uid, name: "Renamed" }],
      ["knowledge.rebuild", { uid: base.uid }],
      ["knowledge.setChunking", { uid: base.uid, chunking: {} }],
    ] as const) {
      expect((await viewer.client.mutate(path, input)).status, path).toBe(403);
    }
    expect(
      (
        await owner.client.mutate<Base>("knowledge.update", {
          uid: base.uid,
          name: "Shared docs",
          description: "For everyone",
        })
      ).data,
    ).toMatchObject({ name: "Shared docs", description: "For everyone" });
  });

  it("another workspace cannot see or touch the base; signed-out requests get 401", async () => {
    const base = await createBase();
    const stranger = await signUpInNewWorkspace(server, "Stan");
    expect((await stranger.client.query("knowledge.get", { uid: base.uid })).status).toBe(403);
    expect((await stranger.client.query("knowledge.list", { workspaceId: owner.workspaceId })).status).toBe(403);
    expect((await search(stranger, base.uid, "anything")).status).toBe(403);
    expect((await upload(stranger, base.uid, [["a.txt", "a"]])).status).toBe(403);
    const anon = await fetch(`${server.url}/api/knowledge/${base.uid}/upload`, {
      method: "POST",
      body: new FormData(),
    });
    expect(anon.status).toBe(401);
    expect(
      (
        await fetch(
          `${server.url}/api/trpc/knowledge.list?input=${encodeURIComponent(JSON.stringify({ workspaceId: owner.workspaceId }))}`,
        )
      ).status,
    ).toBe(401);
  });
});

describe("bad input", () => {
  it("names, chunking parameters and queries are validated with messages that say what to fix", async () => {
    const empty = await member.client.mutate("knowledge.create", { workspaceId: owner.workspaceId, name: "   " });
    expect(empty.status).toBe(400);
    expect(empty.error?.message).toBe("name: Give the knowledge base a name.");

    await createBase("Unique");
    const dup = await member.client.mutate("knowledge.create", { workspaceId: owner.workspaceId, name: "Unique" });
    expect(dup.status).toBe(409);
    expect(dup.error?.message).toMatch(/already exists in this workspace/);

    const base = await createBase();
    const overlap = await member.client.mutate("knowledge.setChunking", {
      uid: base.uid,
      chunking: { chunk_size: 100, chunk_backend_configs: { sentence: { chunk_overlap: 100 } } },
    });
    expect(overlap.status).toBe(400);
    expect(overlap.error?.message).toBe(
      "chunking.chunk_backend_configs.sentence.chunk_overlap: chunk_overlap (100) must be smaller than chunk_size (100)",
    );
    const tokenizer = await member.client.mutate("knowledge.setChunking", {
      uid: base.uid,
      chunking: { tokenizer_or_token_counter: "gpt2" },
    });
    expect(tokenizer.error?.message).toMatch(/tokenizer_or_token_counter must be "word" or "character"/);
    const tiny = await member.client.mutate("knowledge.setChunking", { uid: base.uid, chunking: { chunk_size: 1 } });
    expect(tiny.error?.message).toMatch(/chunk_size must be at least 16/);
    const delim = await member.client.mutate("knowledge.setChunking", {
      uid: base.uid,
      chunking: { chunk_backend_configs: { sentence: { delim: "['.', " } } },
    });
    expect(delim.error?.message).toMatch(/delim: not a Python list of strings/);
    // UltraRAG's string form of delim is accepted.
    expect(
      (
        await member.client.mutate<Base>("knowledge.setChunking", {
          uid: base.uid,
          chunking: { chunk_backend_configs: { sentence: { delim: "['.', '\\n']" } } },
        })
      ).status,
    ).toBe(200);

    await uploadOk(member, base.uid, [["a.md", "# A\n\nalpha beta gamma"]]);
    await settled(base.uid);
    expect((await search(viewer, base.uid, "   ")).error).toMatchObject({
      data: { httpStatus: 400 },
      message: "The search query is empty.",
    });
    expect((await search(viewer, base.uid, "x".repeat(9000))).error?.message).toMatch(/under 8,192 characters/);
    expect((await search(viewer, base.uid, "?!")).error?.message).toMatch(/no letters or digits/);
    expect((await search(viewer, base.uid, "ギリシャ 文字 αβγ")).status).toBe(200);
    expect((await viewer.client.query("knowledge.get", { uid: crypto.randomUUID() })).status).toBe(404);
    expect((await viewer.client.query("knowledge.get", { uid: "not-a-uuid" })).error?.message).toBe(
      "uid: uid must be a UUID",
    );
  });

  it("uploads: not multipart, no files, too many files, a file over the size cap", async () => {
    const base = await createBase();
    const url = `${server.url}/api/knowledge/${base.uid}/upload`;
    // Over a connection of its own (node:http): under load, Node's fetch half-closed the connection of
    // this 50 MB body midway (HPE_INVALID_EOF_STATE on the server, ECONNRESET in the test).
    const big = await uploadOnOwnConnection(member, base.uid, [
      ["huge.txt", new Uint8Array(50 * 1024 * 1024 + 1).fill(0x61)],
      ["small.txt", "a small file"],
    ]);
    expect(big.status).toBe(201);
    const body = (await big.json()) as UploadReply;
    expect(body.documents.map((d) => d.name)).toEqual(["small.txt"]);
    expect(body.rejected).toEqual([
      {
        name: "huge.txt",
        reason: "too_large",
        message:
          "huge.txt is larger than 50 MB, the limit for one document (KNOWLEDGE_MAX_FILE_MB). Split it, or keep only the text.",
      },
    ]);

    const raw = await fetch(url, {
      method: "POST",
      headers: { cookie: member.client.cookie, "content-type": "text/plain" },
      body: "hello",
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { message: string }).message).toMatch(/multipart\/form-data/);

    const none = new FormData();
    none.append("note", "no file here");
    const noFiles = await fetch(url, { method: "POST", headers: { cookie: member.client.cookie }, body: none });
    expect(noFiles.status).toBe(400);
    expect(((await noFiles.json()) as { message: string }).message).toMatch(/contained no files/);

    const many = await upload(
      member,
      base.uid,
      Array.from({ length: 101 }, (_, i) => [`f${i}.txt`, `file ${i}`] as [string, string]),
    );
    expect(many.status).toBe(400);
    expect(((await many.json()) as { message: string }).message).toBe(
      "At most 100 files can be uploaded at once. Upload the rest in another batch.",
    );

    // Nothing of the refused uploads is left behind.
    await server.services.queue.idle();
    const row = await server.services.db.knowledgeBase.findUniqueOrThrow({ where: { uid: base.uid } });
    expect(await readdir(baseDirs(server.services.config.dataDir, row.id).incoming)).toEqual([]);
    expect((await settled(base.uid)).docs.map((d) => d.name)).toEqual(["small.txt"]);
    expect(
      await readFile(
        path.join(
          baseDirs(server.services.config.dataDir, row.id).docs,
          (await readdir(baseDirs(server.services.config.dataDir, row.id).docs))[0]!,
        ),
        "utf8",
      ),
    ).toBe("a small file");
  });

  it("a client that hangs up mid-upload leaves no partial file behind", async () => {
    const base = await createBase();
    const row = await server.services.db.knowledgeBase.findUniqueOrThrow({ where: { uid: base.uid } });
    const url = new URL(server.url);
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise((r) => socket.once("connect", r));
    const b = "XyZ";
    socket.write(
      `POST /api/knowledge/${base.uid}/upload HTTP/1.1\r\nHost: ${url.host}\r\nCookie: ${member.client.cookie}\r\n` +
        `Content-Type: multipart/form-data; boundary=${b}\r\nContent-Length: 10000000\r\n\r\n` +
        `--${b}\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n` +
        "A".repeat(200_000),
    );
    const incoming = baseDirs(server.services.config.dataDir, row.id).incoming;
    await expect.poll(async () => (await readdir(incoming).catch(() => [])).length, { timeout: 5000 }).toBe(1);
    socket.destroy();
    await expect.poll(async () => readdir(incoming).catch(() => []), { timeout: 5000 }).toEqual([]);
  });
});
