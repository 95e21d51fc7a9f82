/**
 * NumPy `.npy` files of float32 matrices (format 1.0), the embedding files UltraRAG's retriever_embed
 * writes and retriever_index reads: a magic string, a header dict padded to 64 bytes, then the rows.
 */
import { readFile, writeFile } from "node:fs/promises";

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00]);

export async function writeNpy(file: string, rows: readonly Float32Array[], dims: number): Promise<void> {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows.length}, ${dims}), }`;
  const total = MAGIC.length + 2 + header.length + 1;
  header += " ".repeat((64 - (total % 64)) % 64) + "\n";
  const head = Buffer.alloc(MAGIC.length + 2 + header.length);
  MAGIC.copy(head, 0);
  head.writeUInt16LE(header.length, MAGIC.length);
  head.write(header, MAGIC.length + 2, "latin1");
  const data = Buffer.alloc(rows.length * dims * 4);
  rows.forEach((r, i) => {
    for (let j = 0; j < dims; j++) data.writeFloatLE(r[j]!, (i * dims + j) * 4);
  });
  await writeFile(file, Buffer.concat([head, data]));
}

export async function readNpy(file: string): Promise<{ rows: Float32Array[]; dims: number }> {
  const buf = await readFile(file);
  if (buf.length < 10 || !buf.subarray(0, 6).equals(MAGIC.subarray(0, 6)))
    throw new Error(`${file} is not a NumPy .npy file`);
  const major = buf[6]!;
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = buf.subarray(major === 1 ? 10 : 12, start).toString("latin1");
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header))
    throw new Error(`${file} must hold little-endian float32 rows (dtype <f4, C order)`);
  const shape = /'shape':\s*\((\d+),\s*(\d+)\)/.exec(header);
  if (!shape) throw new Error(`${file} must hold a 2-D matrix (one row per passage)`);
  const n = Number(shape[1]);
  const dims = Number(shape[2]);
  if (buf.length - start < n * dims * 4) throw new Error(`${file} is shorter than its ${n}×${dims} header says`);
  const rows = Array.from({ length: n }, (_, i) => {
    const r = new Float32Array(dims);
    for (let j = 0; j < dims; j++) r[j] = buf.readFloatLE(start + (i * dims + j) * 4);
    return r;
  });
  return { rows, dims };
}
