/**
 * The registry on its own (a real database, a stand-in for the sockets): a draft past its cap refuses
 * edits and asks for a version once; saving it starts the next generation from the saved text, and an
 * edit of the old generation is then refused; another node's relayed edit lands in this node's copy.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as encoding from "lib0/encoding";
import * as decoding from "lib0/decoding";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";
import { captureLog } from "../../test/helpers/log.ts";
import { type DocNotice, decodeBinary, encodeBinary, pipelineYaml, writePipelineDoc } from "../shared/coedit.ts";
import { createDocRegistry, type DocOutbox, type DraftSource } from "./registry.ts";
import { createDocStore } from "./store.ts";

let server: TestServer;
beforeAll(async () => void (server = await startTestServer()));
afterAll(async () => server?.stop());

const actor = { userId: "u-1", email: "a@x.test", name: "Ann" };
const message = (write: (e: encoding.Encoder) => void) => {
  const e = encoding.createEncoder();
  write(e);
  return encodeBinary(encoding.toUint8Array(e));
};

function harness(maxBytes: number) {
  const notices: DocNotice[] = [];
  const sent: Uint8Array[] = [];
  const saves: string[] = [];
  const outbox: DocOutbox = {
    update: (_room, _generation, update) => void sent.push(update),
    awareness: () => undefined,
    notice: (_room, notice) => void notices.push(notice),
    relay: () => undefined,
  };
  const source: DraftSource = {
    initial: async (_room, doc) => writePipelineDoc(doc, { source: "steps: []\n", parameters: {} }),
    readOnly: async () => false,
    save: async (_actor, _room, doc) => {
      saves.push(pipelineYaml(doc).toString());
      return { version: saves.length + 1 };
    },
  };
  const registry = createDocRegistry({
    store: createDocStore(server.services.db),
    source,
    outbox,
    log: captureLog("warn").log,
    maxBytes,
  });
  return { registry, notices, sent, saves };
}

/** A client doc opened on the registry as `socket`. */
async function open(registry: ReturnType<typeof harness>["registry"], room: string, socket: string) {
  const doc = new Y.Doc();
  const opened = await registry.open(
    socket,
    room,
    message((e) => syncProtocol.writeSyncStep1(e, doc)),
    "member",
  );
  syncProtocol.readSyncMessage(
    decoding.createDecoder(decodeBinary(opened.sync)),
    encoding.createEncoder(),
    doc,
    "server",
  );
  return { doc, opened };
}

function edit(doc: Y.Doc, text: string) {
  const before = Y.encodeStateVector(doc);
  pipelineYaml(doc).insert(0, text);
  return message((e) => syncProtocol.writeUpdate(e, Y.encodeStateAsUpdate(doc, before)));
}

describe("doc registry", () => {
  it("a full draft refuses edits, asks once for a version, and starts again from it when saved", async () => {
    const { registry, notices, saves } = harness(400);
    const room = "pipeline:00000000-0000-4000-8000-0000000000a1";
    const { doc } = await open(registry, room, "s1");
    expect(pipelineYaml(doc).toString()).toBe("steps: []\n");
    let refused: unknown = null;
    for (let i = 0; i < 50 && !refused; i++)
      await registry.update("s1", actor, room, 0, edit(doc, `# line ${i}\n`)).catch((err: unknown) => (refused = err));
    expect(refused).toMatchObject({ kind: "conflict", message: expect.stringMatching(/full: save a version/) });
    await expect(registry.update("s1", actor, room, 0, edit(doc, "x"))).rejects.toMatchObject({ kind: "conflict" });
    expect(notices.filter((n) => n.kind === "full")).toHaveLength(1);

    expect(await registry.save(actor, room)).toEqual({ version: 2 });
    expect(notices).toContainEqual({ kind: "reset", generation: 1 });
    expect(notices).toContainEqual({ kind: "saved", version: 2, by: "Ann" });
    // The old generation's edits are refused; a fresh open continues from the saved text.
    await expect(registry.update("s1", actor, room, 0, edit(doc, "y"))).rejects.toMatchObject({ kind: "conflict" });
    const fresh = await open(registry, room, "s2");
    expect(fresh.opened.generation).toBe(1);
    expect(fresh.opened.full).toBe(false);
    expect(pipelineYaml(fresh.doc).toString()).toBe(saves[0]);
    await registry.update("s2", actor, room, 1, edit(fresh.doc, "after\n"));
    const stored = await createDocStore(server.services.db).load(room);
    expect(stored).toMatchObject({ generation: 1 });
    expect(stored!.updates).toHaveLength(1);
  });

  it("applies another node's relayed edit to this node's copy, and ignores one of another generation", async () => {
    const { registry } = harness(1024 * 1024);
    const room = "pipeline:00000000-0000-4000-8000-0000000000a2";
    const { doc } = await open(registry, room, "s1");
    const before = Y.encodeStateVector(doc);
    pipelineYaml(doc).insert(0, "# relayed\n");
    const update = encodeBinary(Y.encodeStateAsUpdate(doc, before));
    registry.applyRelayed(room, { kind: "update", generation: 3, update });
    expect(pipelineYaml(registry.peek(room)!).toString()).toBe("steps: []\n");
    registry.applyRelayed(room, { kind: "update", generation: 0, update });
    expect(pipelineYaml(registry.peek(room)!).toString()).toBe("# relayed\nsteps: []\n");
  });
});
