/**
 * A chat session as a file: Markdown (each turn under its own heading, the answer's citations as
 * links to its numbered sources below it) or a Word document (.docx, written with the `docx`
 * package: the same layout, each citation an internal link to its source's bookmark). Only finished
 * answers are written; one still running is marked as such.
 */
import { Bookmark, Document, HeadingLevel, InternalHyperlink, Packer, Paragraph, TextRun } from "docx";
import { citationParts, type ChatTurn } from "../../shared/pipeline-chat.ts";

export interface ExportSession {
  title: string;
  pipelineTitle: string;
  createdBy: string | null;
  createdAt: Date;
  turns: ChatTurn[];
}

const SOURCE_EXCERPT = 600;
const excerpt = (s: string) => {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > SOURCE_EXCERPT ? `${one.slice(0, SOURCE_EXCERPT)}…` : one;
};

/** What an answer says when it has no text to export. */
function answerText(t: ChatTurn): string {
  if (t.status === "running") return "(still answering when this was exported)";
  if (t.status === "cancelled") return "(cancelled)";
  if (t.status === "failed") return `(no answer: ${t.error ?? "the run failed"})`;
  return t.body;
}

/** `[1]` → a link to the source's anchor; Markdown's own characters in the text stay as written. */
export function sessionMarkdown(s: ExportSession): string {
  const out: string[] = [`# ${s.title}`, ""];
  out.push(
    `Chat with the pipeline **${s.pipelineTitle}**${s.createdBy ? `, started by ${s.createdBy}` : ""} on ${s.createdAt.toISOString().slice(0, 10)}.`,
    "",
  );
  let n = 0;
  for (const t of s.turns) {
    if (t.role === "user") {
      n++;
      out.push(`## ${n}. Question`, "", t.body, "");
      continue;
    }
    const known = new Set(t.sources.map((x) => x.id));
    const body = citationParts(answerText(t), known)
      .map((p) => (p.kind === "cite" ? `[\\[${p.id}\\]](#turn-${n}-source-${p.id})` : p.text))
      .join("");
    out.push(`### Answer`, "", body, "");
    if (t.sources.length) {
      out.push("**Sources**", "");
      for (const src of t.sources)
        out.push(`- <a id="turn-${n}-source-${src.id}"></a>**[${src.id}]** ${excerpt(src.content)}`);
      out.push("");
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}

const bookmark = (turn: number, id: number) => `turn${turn}_source${id}`;

function answerParagraphs(text: string, known: ReadonlySet<number>, turn: number): Paragraph[] {
  return text.split(/\r?\n/).map(
    (line) =>
      new Paragraph({
        children: citationParts(line, known).map((p) =>
          p.kind === "cite"
            ? new InternalHyperlink({
                anchor: bookmark(turn, p.id),
                children: [new TextRun({ text: p.text, style: "Hyperlink" })],
              })
            : new TextRun(p.text),
        ),
      }),
  );
}

export async function sessionDocx(s: ExportSession): Promise<Buffer> {
  const children: Paragraph[] = [
    new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun(s.title)] }),
    new Paragraph({
      children: [
        new TextRun("Chat with the pipeline "),
        new TextRun({ text: s.pipelineTitle, bold: true }),
        new TextRun(
          `${s.createdBy ? `, started by ${s.createdBy}` : ""} on ${s.createdAt.toISOString().slice(0, 10)}.`,
        ),
      ],
    }),
  ];
  let n = 0;
  for (const t of s.turns) {
    if (t.role === "user") {
      n++;
      children.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun(`${n}. Question`)] }));
      for (const line of t.body.split(/\r?\n/)) children.push(new Paragraph({ children: [new TextRun(line)] }));
      continue;
    }
    const known = new Set(t.sources.map((x) => x.id));
    children.push(new Paragraph({ heading: HeadingLevel.HEADING_2, children: [new TextRun("Answer")] }));
    children.push(...answerParagraphs(answerText(t), known, n));
    if (t.sources.length) {
      children.push(new Paragraph({ heading: HeadingLevel.HEADING_3, children: [new TextRun("Sources")] }));
      for (const src of t.sources)
        children.push(
          new Paragraph({
            children: [
              new Bookmark({ id: bookmark(n, src.id), children: [new TextRun({ text: `[${src.id}] `, bold: true })] }),
              new TextRun(excerpt(src.content)),
            ],
          }),
        );
    }
  }
  const doc = new Document({
    creator: "Argus",
    title: s.title,
    description: `Chat with ${s.pipelineTitle}`,
    sections: [{ children }],
  });
  return Packer.toBuffer(doc);
}

/** A file name from the session's title: letters, digits, - and _ only. */
export function exportFileName(title: string, ext: "md" | "docx"): string {
  const stem =
    title
      .normalize("NFKD")
      .replace(/[^\w\s-]/g, "")
      .trim()
      .replace(/\s+/g, "-")
      .slice(0, 60) || "chat";
  return `${stem}.${ext}`;
}
