/**
 * NumPy `.npy` files of float32 matrices (format 1.0), the embedding files UltraRAG's retriever_embed
 * writes and retriever_index reads: a magic string, a header dict padded to 64 bytes, then the rows.
 * A matrix of 100k × 1024 floats is 400 MB, so neither side holds it twice: the writer appends rows
 * as they are embedded (to a temporary file renamed into place when complete), and the index build
 * reads it a batch of rows at a time (openNpy); readNpy returns one Float32Array with rows as views.
 */
import { open, readFile, rename, rm } from "node:fs/promises";
import { endianness } from "node:os";

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00]);
const LITTLE_ENDIAN = endianness() === "LE";

function header(rows: number, dims: number): Buffer {
  let text = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${dims}), }`;
  const total = MAGIC.length + 2 + text.length + 1;
  text += " ".repeat((64 - (total % 64)) % 64) + "\n";
  const head = Buffer.alloc(MAGIC.length + 2 + text.length);
  MAGIC.copy(head, 0);
  head.writeUInt16LE(text.length, MAGIC.length);
  head.write(text, MAGIC.length + 2, "latin1");
  return head;
}

/** Little-endian bytes of the floats (a view when the machine is little-endian). */
function bytes(v: Float32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  const out = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => out.writeFloatLE(x, i * 4));
  return out;
}

export interface NpyWriter {
  /** Appends rows (each `dims` long), in order. */
  append(rows: readonly Float32Array[]): Promise<void>;
  /** Moves the file into place; fails unless exactly the promised number of rows was written. */
  finish(): Promise<void>;
  /** Drops the partial file (after a failure). */
  abort(): Promise<void>;
}

/** A writer for a `rows × dims` matrix at `file`; nothing appears at `file` until `finish`. */
export async function createNpyWriter(file: string, rows: number, dims: number): Promise<NpyWriter> {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(tmp, "w");
  let written = 0;
  let closed = false;
  const close = async () => {
    if (!closed) await handle.close();
    closed = true;
  };
  try {
    await handle.write(header(rows, dims));
  } catch (err) {
    await close();
    await rm(tmp, { force: true });
    throw err;
  }
  return {
    async append(batch) {
      for (const r of batch)
        if (r.length !== dims) throw new Error(`a ${r.length}-dimension row in a ${dims}-dimension matrix`);
      const data = Buffer.concat(batch.map(bytes));
      await handle.write(data);
      written += batch.length;
    },
    async finish() {
      await close();
      if (written !== rows) {
        await rm(tmp, { force: true });
        throw new Error(`wrote ${written} of the ${rows} rows promised`);
      }
      await rename(tmp, file);
    },
    async abort() {
      await close();
      await rm(tmp, { force: true });
    },
  };
}

export async function writeNpy(file: string, rows: readonly Float32Array[], dims: number): Promise<void> {
  const w = await createNpyWriter(file, rows.length, dims);
  try {
    await w.append(rows);
    await w.finish();
  } catch (err) {
    await w.abort();
    throw err;
  }
}

export interface NpyMatrix {
  rows: Float32Array[];
  dims: number;
}

interface Layout {
  rows: number;
  dims: number;
  /** Byte offset of the first row. */
  start: number;
}

/** The header of a float32 `.npy` file (its first bytes are enough). */
function layout(head: Buffer, size: number, file: string): Layout {
  if (head.length < 10 || !head.subarray(0, 6).equals(MAGIC.subarray(0, 6)))
    throw new Error(`${file} is not a NumPy .npy file`);
  const major = head[6]!;
  const headerLen = major === 1 ? head.readUInt16LE(8) : head.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  if (head.length < start) throw new Error(`${file} is not a NumPy .npy file (its header is cut short)`);
  const text = head.subarray(major === 1 ? 10 : 12, start).toString("latin1");
  if (!/'descr':\s*'<f4'/.test(text) || /'fortran_order':\s*True/.test(text))
    throw new Error(`${file} must hold little-endian float32 rows (dtype <f4, C order)`);
  const shape = /'shape':\s*\((\d+),\s*(\d+)\)/.exec(text);
  if (!shape) throw new Error(`${file} must hold a 2-D matrix (one row per passage)`);
  const rows = Number(shape[1]);
  const dims = Number(shape[2]);
  if (size - start < rows * dims * 4) throw new Error(`${file} is shorter than its ${rows}×${dims} header says`);
  return { rows, dims, start };
}

/** Floats from little-endian bytes: a view when the machine and alignment allow, else a copy. */
function floats(buf: Buffer, offset: number, count: number): Float32Array {
  if (LITTLE_ENDIAN && (buf.byteOffset + offset) % 4 === 0)
    return new Float32Array(buf.buffer, buf.byteOffset + offset, count);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = buf.readFloatLE(offset + i * 4);
  return out;
}

const split = (matrix: Float32Array, n: number, dims: number) =>
  Array.from({ length: n }, (_, i) => matrix.subarray(i * dims, (i + 1) * dims));

export async function readNpy(file: string): Promise<NpyMatrix> {
  const buf = await readFile(file);
  const { rows, dims, start } = layout(buf, buf.length, file);
  return { rows: split(floats(buf, start, rows * dims), rows, dims), dims };
}

export interface NpyReader {
  rows: number;
  dims: number;
  /** The rows in order, `size` at a time (each batch its own memory: earlier ones can be dropped). */
  batches(size: number): AsyncIterable<Float32Array[]>;
  close(): Promise<void>;
}

/** Reads a `.npy` matrix a batch of rows at a time, for files too large to hold whole. */
export async function openNpy(file: string): Promise<NpyReader> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(size, 64 * 1024));
    await handle.read(head, 0, head.length, 0);
    const { rows, dims, start } = layout(head, size, file);
    return {
      rows,
      dims,
      async *batches(batchRows) {
        for (let first = 0; first < rows; first += batchRows) {
          const n = Math.min(batchRows, rows - first);
          const buf = Buffer.alloc(n * dims * 4);
          const { bytesRead } = await handle.read(buf, 0, buf.length, start + first * dims * 4);
          if (bytesRead !== buf.length) throw new Error(`${file} ended before its ${rows}×${dims} rows`);
          yield split(floats(buf, 0, n * dims), n, dims);
        }
      },
      close: () => handle.close(),
    };
  } catch (err) {
    await handle.close();
    throw err;
  }
}
