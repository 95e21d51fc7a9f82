/**
 * Document fixtures made in code (no binary fixtures): a minimal hand-written PDF (one Helvetica
 * text line per input line; optionally with an /Info title, or a Standard-security /Encrypt
 * dictionary whose password check no empty password passes), and a .docx built as a zip around a
 * word/document.xml with the test zip helper.
 */
import { buildZip } from "../../../test/helpers/zip.ts";

export function buildPdf(pages: string[], opts: { title?: string; encrypted?: boolean } = {}): Buffer {
  const objs: string[] = [];
  const kids = pages.map((_, i) => `${4 + i * 2} 0 R`).join(" ");
  objs.push("<< /Type /Catalog /Pages 2 0 R >>");
  objs.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  objs.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  pages.forEach((text, i) => {
    const ops = text
      .split("\n")
      .filter((l) => l !== "")
      .map((l, j) => `BT /F1 12 Tf 72 ${720 - j * 16} Td (${l.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj ET`)
      .join("\n");
    objs.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`,
    );
    objs.push(`<< /Length ${Buffer.byteLength(ops, "latin1")} >>\nstream\n${ops}\nendstream`);
  });
  let trailer = "";
  if (opts.title) {
    objs.push(`<< /Title (${opts.title}) >>`);
    trailer += `/Info ${objs.length} 0 R `;
  }
  if (opts.encrypted) {
    const bytes = (n: number, b: string) => `<${b.repeat(n)}>`;
    objs.push(`<< /Filter /Standard /V 1 /R 2 /O ${bytes(32, "5a")} /U ${bytes(32, "a5")} /P -4 >>`);
    trailer += `/Encrypt ${objs.length} 0 R /ID [${bytes(16, "01")} ${bytes(16, "01")}] `;
  }
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out, "latin1"));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R ${trailer}>>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Paragraphs; one starting with "# " gets Word's Heading1 style. */
export function buildDocx(paragraphs: string[]): Buffer {
  const body = paragraphs
    .map((p) => {
      const heading = p.startsWith("# ");
      const style = heading ? '<w:pPr><w:pStyle w:val="Heading1"/></w:pPr>' : "";
      return `<w:p>${style}<w:r><w:t xml:space="preserve">${esc(heading ? p.slice(2) : p)}</w:t></w:r></w:p>`;
    })
    .join("");
  const documentXml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
  const stylesXml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>`;
  return buildZip([
    {
      name: "[Content_Types].xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>`,
    },
    {
      name: "_rels/.rels",
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    },
    {
      name: "word/_rels/document.xml.rels",
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
    },
    { name: "word/document.xml", data: documentXml },
    { name: "word/styles.xml", data: stylesXml },
  ]);
}
