/**
 * Text summaries of a step's result (`step_end.output`, spec §4.3) and the `sources` event payload
 * (§4.4), formatted as UltraRAG formats them (Python list repr included).
 */
import type { Source } from "./events.ts";

/** Python's repr of a str. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}

/** The passages of a result's `ret_psg` (the first item's list when nested), or undefined. */
function passages(result: Record<string, unknown>): unknown[] | undefined {
  const psg = result.ret_psg;
  if (!Array.isArray(psg)) return undefined;
  return Array.isArray(psg[0]) ? (psg[0] as unknown[]) : psg;
}

export function summarizeStep(name: string, result: Record<string, unknown>, isPrompt: boolean): string {
  if (isPrompt) return "Step completed.";
  const docs = passages(result);
  if (docs) {
    const lines = docs.map((d, i) => {
      const text = String(d);
      return `${i + 1}. ${text.length > 300 ? `${text.slice(0, 300)}...` : text}`;
    });
    return `Retrieved ${docs.length} documents:\n${lines.join("\n")}`.trim();
  }
  const ans = result.ans_ls;
  if (name.includes("generate") && Array.isArray(ans) && ans.length > 0) {
    const text = String(ans[0]);
    return `Generated:\n${text.slice(0, 500)}${text.length > 500 ? "...\n" : ""}`;
  }
  return `Output Keys: [${Object.keys(result).map(pyStrRepr).join(", ")}]`;
}

/** Numbers passages for the `sources` event: `[n] text` keeps n, others get a per-run id (dedup by text). */
export class SourceNumbering {
  private readonly ids = new Map<string, number>();
  private next = 1;

  sources(result: Record<string, unknown>): Source[] | undefined {
    const docs = passages(result);
    if (!docs) return undefined;
    return docs.map((d) => {
      const text = String(d);
      const m = /^\[(\d+)\]\s*/.exec(text);
      let id: number;
      let content: string;
      if (m) {
        id = Number(m[1]);
        content = text.slice(m[0].length);
      } else {
        content = text;
        const key = text.trim();
        id = this.ids.get(key) ?? this.next++;
        this.ids.set(key, id);
      }
      return { id, title: `${content.trim().split("\n")[0]!.slice(0, 30)}...`, content };
    });
  }
}
