/** One entry point for the three export formats: the body, its media type and a download file name. */
import { toJson } from "./json.ts";
import { toMarkdown } from "./markdown.ts";
import { toSarif } from "./sarif.ts";
import { exportBaseName } from "./text.ts";
import { EXPORT_FORMATS, type ExportFormat, type ExportInput, type RenderedExport } from "./types.ts";

export { EXPORT_FORMATS, type ExportFormat, type ExportInput, type RenderedExport } from "./types.ts";

export function isExportFormat(value: string | null): value is ExportFormat {
  return !!value && (EXPORT_FORMATS as readonly string[]).includes(value);
}

export function renderExport(format: ExportFormat, input: ExportInput): RenderedExport {
  const base = exportBaseName(input.review.projectName, input.review.uid);
  switch (format) {
    case "md":
      return { body: toMarkdown(input), contentType: "text/markdown; charset=utf-8", filename: `${base}.md` };
    case "sarif":
      return {
        body: `${JSON.stringify(toSarif(input), null, 2)}\n`,
        contentType: "application/sarif+json; charset=utf-8",
        filename: `${base}.sarif`,
      };
    case "json":
      return {
        body: `${JSON.stringify(toJson(input), null, 2)}\n`,
        contentType: "application/json; charset=utf-8",
        filename: `${base}.json`,
      };
  }
}
