/**
 * Co-editing over the rooms (server/coedit): `doc.open` / `doc.update` / `doc.awareness` / `doc.save`
 * of the room protocol, each already parsed and authorized by protocol.ts (viewers open and show a
 * cursor; members and owners edit and save). This file is the registry's outbox: an edit goes to the
 * room's sockets on every node as `doc.update` (the cluster adapter, like every room message) and to
 * the other nodes' copies of the doc (serverSideEmit `coedit`); cursors go as `doc.awareness`; the
 * rest as `doc.notice`. A socket's cursors go when it leaves the room or disconnects.
 */
import type { Services } from "../context.ts";
import { draftSource } from "../coedit/drafts.ts";
import { createDocRegistry, type DocOutbox, type DocRegistry } from "../coedit/registry.ts";
import { createDocStore } from "../coedit/store.ts";
import { invalid } from "../errors.ts";
import { encodeBinary } from "../shared/coedit.ts";
import type { ArgusSocket, ArgusSocketServer } from "./types.ts";
import type { Handlers } from "./protocol.ts";

export function coeditOutbox(io: ArgusSocketServer, acrossNodes: boolean): DocOutbox {
  return {
    update(room, generation, update, exceptSocket) {
      const to = exceptSocket ? io.to(room).except(exceptSocket) : io.to(room);
      to.emit("doc.update", { room, generation, update: encodeBinary(update) });
    },
    awareness(room, update, exceptSocket) {
      const to = exceptSocket ? io.to(room).except(exceptSocket) : io.to(room);
      to.emit("doc.awareness", { room, update: encodeBinary(update) });
    },
    notice(room, notice) {
      io.to(room).emit("doc.notice", { room, notice });
    },
    relay(room, message) {
      if (acrossNodes) io.serverSideEmit("coedit", { room, message });
    },
  };
}

export function createCoedit(
  io: ArgusSocketServer,
  services: Pick<Services, "db" | "log" | "pipelines" | "prompts" | "redis">,
  opts: { compactEvery?: number } = {},
): DocRegistry {
  const registry = createDocRegistry({
    store: createDocStore(services.db),
    source: draftSource(services),
    outbox: coeditOutbox(io, !!services.redis),
    log: services.log,
    ...opts,
  });
  if (services.redis) io.on("coedit", ({ room, message }) => registry.applyRelayed(room, message));
  return registry;
}

const inRoom = (socket: ArgusSocket, room: string) => {
  if (!socket.rooms.has(room)) throw invalid("Join the room first; then open its draft.");
};

export function coeditHandlers(
  registry: DocRegistry,
): Pick<Handlers, "doc.open" | "doc.update" | "doc.awareness" | "doc.save"> {
  return {
    "doc.open": async (socket, { sync }, room) => {
      inRoom(socket, room!.name);
      return registry.open(socket.id, room!.name, sync, room!.role);
    },
    "doc.update": async (socket, { generation, sync }, room) => {
      inRoom(socket, room!.name);
      await registry.update(socket.id, socket.data.actor, room!.name, generation, sync);
      return {};
    },
    "doc.awareness": async (socket, { update }, room) => {
      inRoom(socket, room!.name);
      registry.awareness(socket.id, socket.data.actor, room!.name, update);
      return {};
    },
    "doc.save": async (socket, { message }, room) => registry.save(socket.data.actor, room!.name, message),
  };
}
