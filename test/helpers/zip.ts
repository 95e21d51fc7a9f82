/**
 * A tiny zip writer for tests: stored or deflate entries, unix modes (symlinks, dirs), and the
 * ability to lie in the headers — what hostile archives do (zip-slip names, bombs, bad CRCs).
 */
import { writeFile } from "node:fs/promises";
import { crc32, deflateRawSync } from "node:zlib";

export interface ZipEntrySpec {
  name: string;
  data?: Uint8Array | string;
  /** Default "deflate". */
  method?: "store" | "deflate";
  /** Unix mode with type bits: 0o100644 file (default), 0o120777 symlink (data = target), 0o040755 dir. */
  mode?: number;
  /** Header lies: a CRC or sizes other than the real ones. */
  crc?: number;
  declaredUncompressedSize?: number;
  /** Sets the "encrypted" flag (the data is not actually encrypted). */
  encrypted?: boolean;
  /** A compression method number other than 0/8 (e.g. 12 = bzip2); the data is stored as given. */
  rawMethod?: number;
}

const DOS_TIME = 0;
const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1;

export function buildZip(entries: readonly ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, "utf8");
    const raw = typeof e.data === "string" ? Buffer.from(e.data, "utf8") : Buffer.from(e.data ?? new Uint8Array());
    const method = e.rawMethod ?? (e.method === "store" ? 0 : 8);
    const body = method === 8 ? deflateRawSync(raw) : raw;
    const crc = e.crc ?? crc32(raw);
    const usize = e.declaredUncompressedSize ?? raw.length;
    const flags = 0x0800 | (e.encrypted ? 0x0001 : 0);
    const mode = e.mode ?? (e.name.endsWith("/") ? 0o040755 : 0o100644);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(usize, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by unix, so the mode bits count
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(usize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  // More than 65,535 entries only fit in the ZIP64 end records; the classic one then says 0xFFFF.
  const zip64 = entries.length > 0xffff;
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(zip64 ? 0xffff : entries.length, 8);
  eocd.writeUInt16LE(zip64 ? 0xffff : entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  if (!zip64) return Buffer.concat([...locals, cd, eocd]);
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4); // size of the rest of this record
  record.writeUInt16LE(45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(entries.length), 24);
  record.writeBigUInt64LE(BigInt(entries.length), 32);
  record.writeBigUInt64LE(BigInt(cd.length), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + cd.length), 8);
  locator.writeUInt32LE(1, 16);
  return Buffer.concat([...locals, cd, record, locator, eocd]);
}

export async function writeZip(file: string, entries: readonly ZipEntrySpec[]): Promise<string> {
  await writeFile(file, buildZip(entries));
  return file;
}
