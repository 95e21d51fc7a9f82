import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../engine/test-support.ts";
import { createNpyWriter, readNpy, writeNpy } from "./npy.ts";

let cleanup = () => {};
afterEach(() => cleanup());

describe(".npy files", () => {
  it("round-trips a float32 matrix with NumPy's 1.0 header, rows appended in batches", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, "e.npy");
    const w = await createNpyWriter(file, 3, 2);
    await w.append([Float32Array.of(1, -2.5)]);
    expect(existsSync(file)).toBe(false); // nothing at the name until the matrix is complete
    await w.append([Float32Array.of(0.25, 3), Float32Array.of(1e-3, 7)]);
    await w.finish();
    const bytes = readFileSync(file);
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]));
    const headerLen = bytes.readUInt16LE(8);
    expect((10 + headerLen) % 64).toBe(0);
    expect(bytes.subarray(10, 10 + headerLen).toString("latin1")).toMatch(
      /^\{'descr': '<f4', 'fortran_order': False, 'shape': \(3, 2\), \} *\n$/,
    );
    expect(bytes.readFloatLE(10 + headerLen + 4)).toBe(-2.5);
    const { rows, dims } = await readNpy(file);
    expect(dims).toBe(2);
    expect(rows.map((r) => [...r])).toEqual([
      [1, -2.5],
      [0.25, 3],
      [Math.fround(1e-3), 7],
    ]);
  });

  it("a writer that does not get every row it promised leaves no file behind", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = path.join(t.dir, "e.npy");
    const w = await createNpyWriter(file, 2, 2);
    await w.append([Float32Array.of(1, 2)]);
    await expect(w.finish()).rejects.toThrow("wrote 1 of the 2 rows promised");
    await expect(writeNpy(file, [Float32Array.of(1, 2, 3)], 2)).rejects.toThrow(
      "a 3-dimension row in a 2-dimension matrix",
    );
    expect(readdirSync(t.dir)).toEqual([]);
  });
});
