/**
 * Just enough of the ONNX protobuf format (onnx/onnx.proto3) to write a small inference graph: a
 * hand-rolled protobuf encoder, because the model a test needs is a handful of messages and a
 * protobuf library (plus the .proto schema) would be the larger part of it. Field numbers are those
 * of onnx.proto; only the fields used here exist.
 */

/** Protobuf wire writer: varints, length-delimited fields, nested messages. */
class ProtoWriter {
  private readonly parts: Uint8Array[] = [];

  private key(field: number, wireType: number): void {
    this.varint(BigInt((field << 3) | wireType));
  }

  /** A varint; negative values are encoded as 64-bit two's complement (10 bytes), as protobuf does. */
  private varint(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    const bytes: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      bytes.push(byte);
    } while (v !== 0n);
    this.parts.push(Uint8Array.from(bytes));
  }

  int(field: number, value: number | bigint): this {
    this.key(field, 0);
    this.varint(BigInt(value));
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.key(field, 2);
    this.varint(BigInt(value.length));
    this.parts.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, value: ProtoWriter): this {
    return this.bytes(field, value.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

/** TensorProto.DataType values used here. */
export const ONNX_FLOAT = 1;
export const ONNX_INT64 = 7;

export interface TensorInit {
  name: string;
  dims: number[];
  /** Float32Array → FLOAT, BigInt64Array → INT64; stored as little-endian raw_data. */
  data: Float32Array | BigInt64Array;
}

export interface ValueInfo {
  name: string;
  elemType: number;
  /** A number is a fixed size; a string a symbolic (dynamic) dimension such as "batch". */
  shape: (number | string)[];
}

export interface NodeInit {
  opType: string;
  inputs: string[];
  outputs: string[];
  /** Integer attributes only (all this module's graphs need: Gather axis, Cast to). */
  intAttributes?: Record<string, number>;
}

export interface GraphInit {
  name: string;
  nodes: NodeInit[];
  initializers: TensorInit[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  /** Default opset 13 (Unsqueeze takes its axes as an input from 13 on). */
  opset?: number;
}

function tensor(t: TensorInit): ProtoWriter {
  const w = new ProtoWriter();
  for (const d of t.dims) w.int(1, d); // dims
  w.int(2, t.data instanceof Float32Array ? ONNX_FLOAT : ONNX_INT64); // data_type
  w.string(8, t.name); // name
  // raw_data is little-endian; typed arrays are in platform order, which is little-endian on every
  // platform Node ships for (x64, arm64).
  w.bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return w;
}

function valueInfo(v: ValueInfo): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of v.shape)
    shape.message(1, typeof d === "number" ? new ProtoWriter().int(1, d) : new ProtoWriter().string(2, d)); // dim: dim_value | dim_param
  const tensorType = new ProtoWriter().int(1, v.elemType).message(2, shape); // elem_type, shape
  return new ProtoWriter().string(1, v.name).message(2, new ProtoWriter().message(1, tensorType)); // name, type.tensor_type
}

function node(n: NodeInit, index: number): ProtoWriter {
  const w = new ProtoWriter();
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(3, `${n.opType.toLowerCase()}_${index}`); // name
  w.string(4, n.opType); // op_type
  for (const [name, value] of Object.entries(n.intAttributes ?? {})) {
    w.message(5, new ProtoWriter().string(1, name).int(3, value).int(20, 2)); // attribute: name, i, type INT
  }
  return w;
}

/** A serialised ModelProto holding one graph. */
export function encodeOnnxModel(graph: GraphInit): Uint8Array {
  const g = new ProtoWriter();
  graph.nodes.forEach((n, i) => g.message(1, node(n, i)));
  g.string(2, graph.name);
  for (const t of graph.initializers) g.message(5, tensor(t));
  for (const v of graph.inputs) g.message(11, valueInfo(v));
  for (const v of graph.outputs) g.message(12, valueInfo(v));
  return new ProtoWriter()
    .int(1, 8) // ir_version 8 (ONNX 1.10+)
    .string(2, "argus-test") // producer_name
    .message(7, g) // graph
    .message(8, new ProtoWriter().string(1, "").int(2, graph.opset ?? 13)) // opset_import: default domain
    .finish();
}
