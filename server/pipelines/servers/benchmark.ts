/**
 * servers/benchmark (spec §5.1): `get_data` loads a QA dataset (.jsonl or .json) and returns one list
 * per `key_map` alias. Rows lacking a field are skipped for that alias only (so lists may differ in
 * length, as upstream). `shuffle` uses Python's seeded shuffle, so the same items come out as in
 * UltraRAG. Paths resolve against the run's directory (run-files.ts: inside it for web-app runs).
 */
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { defineServer, ToolError } from "./define.ts";
import { PythonRandom } from "./python-random.ts";
import { runFiles } from "./run-files.ts";
import { formatZodIssues } from "../../shared/zod-issues.ts";

const configSchema = z.object({
  name: z.string().optional(),
  path: z
    .string({ error: "`path` is required: the dataset file (.jsonl or .json)" })
    .min(1, "`path` must name the dataset file"),
  key_map: z
    .record(z.string(), z.string(), {
      error: "`key_map` must map output names to dataset fields, e.g. {q_ls: question, gt_ls: golden_answers}",
    })
    .refine((m) => Object.keys(m).length > 0, "`key_map` must not be empty"),
  shuffle: z.boolean().default(false),
  seed: z.number().int().default(42),
  limit: z
    .number({ error: "`limit` must be a whole number (-1 for all)" })
    .int("`limit` must be a whole number (-1 for all)")
    .min(-1, "`limit` must be -1 (all) or a positive number")
    .refine((n) => n !== 0, "`limit` must be -1 (all) or a positive number")
    .default(-1),
});

type Row = Record<string, unknown>;

async function readRows(file: string, stopAfter: number): Promise<Row[]> {
  const ext = path.extname(file).toLowerCase();
  const info = await stat(file).catch(() => null);
  if (!info?.isFile())
    throw new ToolError(
      `benchmark.get_data: dataset file '${file}' does not exist (paths resolve against the directory the pipeline runs in)`,
    );
  if (ext === ".jsonl") {
    const rows: Row[] = [];
    const lines = createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity });
    let n = 0;
    for await (const line of lines) {
      n++;
      if (line.trim() === "") continue;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch {
        lines.close();
        throw new ToolError(
          `benchmark.get_data: ${file}:${n} is not valid JSON (each line of a .jsonl file is one JSON object)`,
        );
      }
      rows.push(row !== null && typeof row === "object" && !Array.isArray(row) ? (row as Row) : {});
      if (stopAfter > 0 && rows.length >= stopAfter) {
        lines.close();
        break;
      }
    }
    return rows;
  }
  if (ext === ".json") {
    let data: unknown;
    try {
      data = JSON.parse(await readFile(file, "utf8"));
    } catch {
      throw new ToolError(`benchmark.get_data: ${file} is not valid JSON`);
    }
    if (!Array.isArray(data)) throw new ToolError(`benchmark.get_data: ${file} must contain a JSON list of records`);
    const rows = data.map((r) => (r !== null && typeof r === "object" && !Array.isArray(r) ? (r as Row) : {}));
    return stopAfter > 0 ? rows.slice(0, stopAfter) : rows;
  }
  if (ext === ".parquet")
    throw new ToolError(
      `benchmark.get_data: .parquet datasets are not supported by Argus yet; convert ${file} to .jsonl`,
    );
  throw new ToolError(
    `benchmark.get_data: unsupported dataset type '${ext || "(none)"}' for ${file}; use .jsonl or .json`,
  );
}

export const benchmark = defineServer({
  name: "benchmark",
  defaults: {
    benchmark: {
      name: "nq",
      path: "data/sample_nq_10.jsonl",
      key_map: { q_ls: "question", gt_ls: "golden_answers" },
      shuffle: false,
      seed: 42,
      limit: -1,
    },
  },
  tools: {
    get_data: {
      params: ["benchmark"],
      output: "benchmark->q_ls,gt_ls",
      async run(args, ctx) {
        const parsed = configSchema.safeParse(args.benchmark ?? {});
        if (!parsed.success)
          throw new ToolError(
            `benchmark.get_data: bad \`benchmark\` parameter: ${formatZodIssues(parsed.error, { separator: "; " })}`,
          );
        const cfg = parsed.data;
        const file = runFiles(ctx).read(cfg.path, "benchmark.path", "benchmark.get_data");
        const rows = await readRows(file, cfg.shuffle ? -1 : cfg.limit);
        const out: Record<string, unknown[]> = {};
        for (const [alias, field] of Object.entries(cfg.key_map))
          out[alias] = rows.filter((r) => Object.hasOwn(r, field)).map((r) => r[field]);
        const lists = Object.values(out);
        if (cfg.shuffle) {
          const idx = new PythonRandom(cfg.seed).shuffle([...lists[0]!.keys()]);
          const take = cfg.limit === -1 ? idx : idx.slice(0, cfg.limit);
          for (const [alias, list] of Object.entries(out)) {
            if (take.some((i) => i >= list.length)) {
              throw new ToolError(
                `benchmark.get_data: cannot shuffle: '${alias}' has ${list.length} values but the first key has ${lists[0]!.length} (some rows lack field '${cfg.key_map[alias]}')`,
              );
            }
            out[alias] = take.map((i) => list[i]);
          }
        } else if (cfg.limit > 0) {
          for (const [alias, list] of Object.entries(out)) out[alias] = list.slice(0, cfg.limit);
        }
        return out;
      },
    },
  },
});
