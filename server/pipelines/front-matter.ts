/**
 * A pipeline file's front matter: a comment block at the top between `# ---` lines, holding YAML
 * (`title`, `description`, `tags`, `needs: none | llm | web | knowledge` — knowledge: a knowledge base of the workspace the run is in, and a model). Comments, so UltraRAG reads the same
 * file unchanged; `argus pipeline list` shows it.
 */
import { parse } from "yaml";
import { z } from "zod";

export const frontMatterSchema = z.object({
  title: z.string().min(1),
  description: z.string().default(""),
  tags: z.array(z.string()).default([]),
  needs: z.enum(["none", "llm", "web", "knowledge"]).default("none"),
});
export type FrontMatter = z.infer<typeof frontMatterSchema>;

/** The front matter of `source`, or null when it has none (or it is not valid). */
export function readFrontMatter(source: string): FrontMatter | null {
  const lines = source.split(/\r?\n/);
  if (lines[0]?.trim() !== "# ---") return null;
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === "# ---");
  if (end < 0) return null;
  const yaml = lines
    .slice(1, end)
    .map((l) => l.replace(/^#\s?/, ""))
    .join("\n");
  try {
    const parsed = frontMatterSchema.safeParse(parse(yaml));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
