import { closePdfWorker } from "./pdf.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { buildZip } from "../../../test/helpers/zip.ts";
import { parseDocument, ParseRefusal, statusForRefusal, type RefusalReason } from "./index.ts";
import { buildDocx, buildPdf } from "./test-support.ts";

const utf8 = (s: string) => Buffer.from(s, "utf8");

async function refusal(name: string, bytes: Uint8Array): Promise<{ reason: RefusalReason; message: string }> {
  try {
    await parseDocument(name, bytes);
  } catch (err) {
    if (err instanceof ParseRefusal) return { reason: err.reason, message: err.message };
    throw err;
  }
  throw new Error(`${name} was parsed, but a refusal was expected`);
}

describe("plain text", () => {
  it("decodes UTF-8, UTF-16 (BOM) and Windows-1252, and normalises line ends like UltraRAG", async () => {
    expect((await parseDocument("a.txt", utf8("Grüße\r\nzweite\u3000Zeile\n\n\n\n\nEnde  "))).text).toBe(
      "Grüße\nzweite Zeile\n\nEnde",
    );
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("naïve café", "utf16le")]);
    expect((await parseDocument("b.txt", utf16)).text).toBe("naïve café");
    expect((await parseDocument("c.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]))).text).toBe("café €");
    expect((await parseDocument("d.txt", utf8("\ufeffwith bom"))).text).toBe("with bom");
  });

  it("refuses binary files named .txt and files with no words", async () => {
    const bin = await refusal("x.txt", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]));
    expect(bin.reason).toBe("unsupported");
    expect(bin.message).toMatch(/binary file/);
    expect(await refusal("empty.txt", new Uint8Array())).toMatchObject({
      reason: "empty",
      message: expect.stringMatching(/the file is empty/),
    });
    expect((await refusal("dashes.md", utf8("---\n\n***\n"))).reason).toBe("empty");
  });
});

describe("markdown", () => {
  it("keeps the text and drops the markup", async () => {
    const md = [
      "---",
      'title: "Deployment guide"',
      "tags: [ops]",
      "---",
      "# Deploying **Argus**",
      "",
      "Read the [install notes](https://example.com/install) and ![the diagram](img/arch.png) first.",
      "> Quoted *advice* with `inline_code()` and snake_case_names.",
      "",
      "- [x] first step",
      "1. second step",
      "",
      "| key | value |",
      "|-----|:-----:|",
      "| PORT | 3000 |",
      "",
      "```sh",
      "npm run **start**",
      "```",
      '<div class="note">Inline <b>HTML</b> &amp; entities</div>',
      "[ref]: https://example.com/ref",
      "Setext heading",
      "==============",
    ].join("\n");
    const doc = await parseDocument("guide.md", utf8(md));
    expect(doc.kind).toBe("markdown");
    expect(doc.title).toBe("Deployment guide");
    expect(doc.text).toContain("Deploying Argus");
    expect(doc.text).toContain("Read the install notes and the diagram first.");
    expect(doc.text).toContain("Quoted advice with inline_code() and snake_case_names.");
    expect(doc.text).toMatch(/^first step$/m);
    expect(doc.text).toMatch(/^second step$/m);
    expect(doc.text).toContain("PORT  3000");
    expect(doc.text).toContain("npm run **start**"); // code is kept verbatim
    expect(doc.text).toContain("Inline HTML & entities");
    expect(doc.text).toMatch(/^Setext heading$/m);
    for (const noise of ["https://", "img/arch.png", "](", "|-", "```", "<div", "title:", "====="])
      expect(doc.text).not.toContain(noise);
  });

  it("takes the first heading as the title when there is no front matter", async () => {
    expect((await parseDocument("n.md", utf8("Intro line\n\n## Section two\n\n# Later"))).title).toBe("Section two");
  });
});

describe("html", () => {
  it("extracts visible text: scripts and styles dropped, blocks on their own lines, entities decoded", async () => {
    const html = `<!doctype html><html><head><title>The &quot;Guide&quot;</title><style>body{color:red}</style>
      <script>var secret = "do not index";</script></head>
      <body><nav>Home</nav><h1>Welcome</h1><p>First   paragraph,
      with <a href="/x">a link</a> &amp; more.</p><!-- a comment --><ul><li>one</li><li>two</li></ul>
      <table><tr><td>cell A</td><td>cell B</td></tr></table><pre>  keep
    spacing</pre><noscript>enable JS</noscript><p>unclosed <b>bold</p></body></html>`;
    const doc = await parseDocument("page.html", utf8(html));
    expect(doc.title).toBe('The "Guide"');
    expect(doc.text).toContain("First paragraph, with a link & more.");
    expect(doc.text).toMatch(/^Welcome$/m);
    expect(doc.text).toMatch(/^one\ntwo$/m);
    expect(doc.text).toContain("cell A  cell B");
    expect(doc.text).toContain("keep\n    spacing");
    expect(doc.text).toContain("unclosed bold");
    for (const noise of ["secret", "color:red", "comment", "enable JS", "<"]) expect(doc.text).not.toContain(noise);
  });

  it("uses the first h1 when there is no <title>", async () => {
    expect((await parseDocument("p.htm", utf8("<h1>Only <i>heading</i></h1><p>body</p>"))).title).toBe("Only heading");
  });
});

describe("pdf", () => {
  // The first PDF starts the PDF worker (tsx and pdfjs load in it): seconds on a busy machine.
  beforeAll(() => parseDocument("warm-up.pdf", buildPdf(["Warm up."])), 60_000);

  it("extracts the text of every page in order, and the title from the document info", async () => {
    const pdf = buildPdf(["Retrieval augmented generation.", "Second page: hybrid search (BM25 + vectors)."], {
      title: "RAG notes",
    });
    const doc = await parseDocument("notes.pdf", pdf);
    expect(doc.kind).toBe("pdf");
    expect(doc.title).toBe("RAG notes");
    expect(doc.text).toBe("Retrieval augmented generation.\n\nSecond page: hybrid search (BM25 + vectors).");
  });

  it("re-joins words hyphenated across lines", async () => {
    expect((await parseDocument("h.pdf", buildPdf(["An exam-\nple of reflow."]))).text).toBe("An example of reflow.");
  });

  it("refuses a password-protected PDF as encrypted (skipped)", async () => {
    const r = await refusal("locked.pdf", buildPdf(["secret text"], { encrypted: true }));
    expect(r.reason).toBe("encrypted");
    expect(r.message).toMatch(/locked\.pdf is password-protected/);
    expect(statusForRefusal(r.reason)).toBe("skipped");
  });

  it("refuses a scanned PDF (no text layer) as empty, with the OCR hint", async () => {
    const r = await refusal("scan.pdf", buildPdf([""]));
    expect(r).toMatchObject({ reason: "empty", message: expect.stringMatching(/no text layer.*OCR/) });
  });

  it("refuses damaged and mislabelled PDFs as corrupt (failed)", async () => {
    const truncated = buildPdf(["some text"]).subarray(0, 60);
    const r1 = await refusal("cut.pdf", truncated);
    expect(r1.reason).toBe("corrupt");
    expect(statusForRefusal(r1.reason)).toBe("failed");
    const r2 = await refusal("fake.pdf", utf8("just text pretending"));
    expect(r2).toMatchObject({ reason: "corrupt", message: expect.stringMatching(/not a PDF/) });
  });

  it("leaves the server's own globals alone (pdfjs's core-js polyfills stay in the PDF worker)", async () => {
    await parseDocument("notes.pdf", buildPdf(["Some text to parse."]));
    // core-js dresses its replacements up as native code; its shared store on globalThis gives it away.
    expect(Object.getOwnPropertyNames(globalThis)).not.toContain("__core-js_shared__");
  });

  it("several PDFs at once each get their own text; a closed worker starts again for the next", async () => {
    const docs = await Promise.all(
      ["one", "two", "three"].map((w) => parseDocument(`${w}.pdf`, buildPdf([`The word is ${w}.`]))),
    );
    expect(docs.map((d) => d.text)).toEqual(["The word is one.", "The word is two.", "The word is three."]);
    await closePdfWorker();
    expect((await parseDocument("again.pdf", buildPdf(["Back again."]))).text).toBe("Back again.");
  });
});

describe("docx", () => {
  it("extracts paragraphs, with the first heading as the title", async () => {
    const doc = await parseDocument(
      "report.docx",
      buildDocx(["# Quarterly report", "Revenue grew by 12 percent.", "Costs & risks were stable."]),
    );
    expect(doc.kind).toBe("docx");
    expect(doc.title).toBe("Quarterly report");
    expect(doc.text).toBe("Quarterly report\n\nRevenue grew by 12 percent.\n\nCosts & risks were stable.");
  });

  it("refuses a zip without a Word document, garbage, and a password-protected (OLE) file", async () => {
    expect(await refusal("nodoc.docx", buildZip([{ name: "hello.txt", data: "hi" }]))).toMatchObject({
      reason: "corrupt",
      message: expect.stringMatching(/could not be read as a Word document/),
    });
    expect(await refusal("junk.docx", utf8("not a zip at all"))).toMatchObject({
      reason: "corrupt",
      message: expect.stringMatching(/not a valid \.docx/),
    });
    const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(512)]);
    expect(await refusal("locked.docx", ole)).toMatchObject({
      reason: "encrypted",
      message: expect.stringMatching(/password-protected/),
    });
  });

  it("refuses a zip bomb before inflating it into memory", async () => {
    const bomb = buildZip([{ name: "word/document.xml", data: Buffer.alloc(210 * 1024 * 1024, 0x20) }]);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(await refusal("bomb.docx", bomb)).toMatchObject({
      reason: "too_large",
      message: expect.stringMatching(/expands to more than 200 MB/),
    });
  });

  it("refuses an entry whose real size exceeds its declared size", async () => {
    const lying = buildZip([{ name: "word/document.xml", data: "x".repeat(10_000), declaredUncompressedSize: 10 }]);
    expect((await refusal("lie.docx", lying)).reason).toBe("corrupt");
  });
});

describe("unsupported types", () => {
  it("names the extension and what to do", async () => {
    expect(await refusal("slides.pptx", utf8("x"))).toMatchObject({
      reason: "unsupported",
      message: expect.stringMatching(/"\.pptx" files are not supported.*Export it as PDF/),
    });
    expect(await refusal("old.doc", utf8("x"))).toMatchObject({ message: expect.stringMatching(/Save it as \.docx/) });
    expect((await refusal("Makefile", utf8("all:"))).message).toMatch(/files without an extension/);
  });
});
