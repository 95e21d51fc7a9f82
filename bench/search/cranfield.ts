/**
 * The Cranfield collection (../shared/data/cranfield, SMART format; see ../shared/data/README.md):
 * 1,400 aeronautics abstracts, 225 queries, graded judgements. Judged grades 1 (most relevant) … 4
 * count as relevant with gain 5 − grade (4 … 1) for nDCG; -1 and 5 are "not relevant". The k-th query
 * in cran.qry is query k in cranqrel (the .I numbers in cran.qry skip).
 */
import { readFileSync } from "node:fs";
import path from "node:path";

export interface Cranfield {
  /** Document id ("1" … "1400") → text (the .W field, which starts with the title). */
  docs: Map<string, string>;
  queries: { id: string; text: string; relevant: Map<string, number> }[];
}

/** Records of a SMART file: `.I n` starts one, `.X` lines name fields. */
function records(source: string): { id: string; fields: Record<string, string> }[] {
  const out: { id: string; fields: Record<string, string> }[] = [];
  let field = "";
  for (const line of source.split("\n")) {
    const start = /^\.I\s+(\d+)/.exec(line);
    if (start) {
      out.push({ id: String(Number(start[1])), fields: {} });
      field = "";
      continue;
    }
    const f = /^\.([TABW])\s*$/.exec(line);
    if (f) {
      field = f[1]!;
      continue;
    }
    const rec = out[out.length - 1];
    if (rec && field) rec.fields[field] = `${rec.fields[field] ?? ""}${line}\n`;
  }
  return out;
}

export function loadCranfield(dir: string): Cranfield {
  const read = (f: string) => readFileSync(path.join(dir, f), "utf8");
  const docs = new Map(records(read("cran.all.1400")).map((r) => [r.id, (r.fields.W ?? r.fields.T ?? "").trim()]));
  const judged = new Map<string, Map<string, number>>();
  for (const line of read("cranqrel").split("\n")) {
    const [q, d, g] = line.trim().split(/\s+/);
    const grade = Number(g);
    if (!q || !d || !(grade >= 1 && grade <= 4)) continue;
    if (!judged.has(q)) judged.set(q, new Map());
    judged.get(q)!.set(String(Number(d)), 5 - grade);
  }
  const queries = records(read("cran.qry"))
    .map((r, i) => ({
      id: String(i + 1),
      text: (r.fields.W ?? "").replace(/\s+/g, " ").trim(),
      relevant: judged.get(String(i + 1)) ?? new Map<string, number>(),
    }))
    .filter((q) => q.text && q.relevant.size > 0);
  if (docs.size !== 1400) throw new Error(`Cranfield: expected 1,400 documents in ${dir}, found ${docs.size}`);
  return { docs, queries };
}
