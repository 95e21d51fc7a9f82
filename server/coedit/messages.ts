/**
 * Reading what clients send to a shared draft, before any of it is applied, stored or passed on:
 * y-protocols sync messages (step 1 to open; step 2 or update to edit) and awareness updates. A
 * malformed message throws `invalid` here; an awareness state is checked against its schema and gets
 * the sender's real name (nobody types under a teammate's name).
 */
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import { DomainError, invalid } from "../errors.ts";
import { type AwarenessState, awarenessStateSchema, decodeBinary, PIPELINE_PARAMS } from "../shared/coedit.ts";
import { isSecretKey, SECRET_MASK } from "../shared/pipelines.ts";

function bytesOf(base64: string): Uint8Array {
  try {
    return decodeBinary(base64);
  } catch {
    throw invalid("The message is not base64.");
  }
}

/** The state vector of a sync step 1 message. */
export function readStep1(base64: string): Uint8Array {
  const decoder = decoding.createDecoder(bytesOf(base64));
  try {
    if (decoding.readVarUint(decoder) !== syncProtocol.messageYjsSyncStep1) throw new Error("not step 1");
    const vector = decoding.readVarUint8Array(decoder);
    Y.decodeStateVector(vector);
    return vector;
  } catch {
    throw invalid("Open a document with a sync step 1 message (y-protocols).");
  }
}

/**
 * The update of a sync step 2 or update message, once it decodes as a Yjs update whose top-level
 * content goes only into the document's own roots (`roots`). Throws `invalid` otherwise.
 */
export function readUpdate(base64: string, roots: readonly string[]): Uint8Array {
  const decoder = decoding.createDecoder(bytesOf(base64));
  let update: Uint8Array;
  try {
    const kind = decoding.readVarUint(decoder);
    if (kind !== syncProtocol.messageYjsSyncStep2 && kind !== syncProtocol.messageYjsUpdate) throw new Error("kind");
    update = decoding.readVarUint8Array(decoder);
    if (decoding.hasContent(decoder)) throw new Error("trailing bytes");
  } catch {
    throw invalid("An edit must be a y-protocols sync step 2 or update message.");
  }
  let structs: ReturnType<typeof Y.decodeUpdate>["structs"];
  try {
    structs = Y.decodeUpdate(update).structs;
  } catch {
    throw invalid("The edit is not a Yjs update.");
  }
  for (const s of structs) {
    // A top-level item of a decoded update names its root by a string (else its parent is an id).
    const parent = s instanceof Y.Item ? (s.parent as unknown) : null;
    if (typeof parent === "string" && !roots.includes(parent))
      throw invalid(`The edit writes into "${parent.slice(0, 40)}", which this document does not have.`);
    if (s instanceof Y.Item && parent === PIPELINE_PARAMS && writesSecret(s))
      throw invalid("A secret (an API key, a token) is never shared in the draft: it is saved with the version only.");
  }
  return update;
}

/** A parameter field named like a secret, set to anything but blank or the mask. */
function writesSecret(item: Y.Item): boolean {
  let path: unknown;
  try {
    path = JSON.parse(item.parentSub ?? "null");
  } catch {
    return false;
  }
  const key = Array.isArray(path) ? path[path.length - 1] : null;
  if (typeof key !== "string" || !isSecretKey(key)) return false;
  const values = item.content instanceof Y.ContentAny ? item.content.arr : [];
  return values.some((v) => v !== "" && v !== SECRET_MASK && v !== null);
}

/** A y-protocols message written by `write` (to send to a client). */
export function syncMessage(write: (encoder: encoding.Encoder) => void): Uint8Array {
  const encoder = encoding.createEncoder();
  write(encoder);
  return encoding.toUint8Array(encoder);
}

export interface AwarenessEntry {
  clientId: number;
  clock: number;
  /** null: the client is gone. */
  state: AwarenessState | null;
}

/**
 * The entries of an awareness update, each state checked and stamped with the sender's name and id.
 * Throws `invalid` for anything else.
 */
export function readAwareness(base64: string, sender: { userId: string; name: string }): AwarenessEntry[] {
  const decoder = decoding.createDecoder(bytesOf(base64));
  const entries: AwarenessEntry[] = [];
  try {
    const count = decoding.readVarUint(decoder);
    if (count > 4) throw new Error("too many");
    for (let i = 0; i < count; i++) {
      const clientId = decoding.readVarUint(decoder);
      const clock = decoding.readVarUint(decoder);
      const raw = JSON.parse(decoding.readVarString(decoder)) as unknown;
      entries.push({ clientId, clock, state: raw === null ? null : stamp(raw, sender) });
    }
    if (decoding.hasContent(decoder)) throw new Error("trailing bytes");
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw invalid("A cursor update must be a y-protocols awareness update.");
  }
  return entries;
}

function stamp(raw: unknown, sender: { userId: string; name: string }): AwarenessState {
  const parsed = awarenessStateSchema.safeParse(raw);
  if (!parsed.success) throw invalid("A cursor update carries a user (name, colour) and a cursor, nothing else.");
  if (JSON.stringify(parsed.data.cursor ?? null).length > 1024) throw invalid("That cursor is too large.");
  return { ...parsed.data, user: { ...parsed.data.user, name: sender.name, id: sender.userId } };
}

/** Encodes awareness entries as an awareness update (what the server passes on). */
export function encodeAwareness(entries: readonly AwarenessEntry[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, entries.length);
  for (const e of entries) {
    encoding.writeVarUint(encoder, e.clientId);
    encoding.writeVarUint(encoder, e.clock);
    encoding.writeVarString(encoder, JSON.stringify(e.state));
  }
  return encoding.toUint8Array(encoder);
}
