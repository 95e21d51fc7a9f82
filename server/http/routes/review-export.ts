/**
 * GET /api/reviews/<uid>/export?format=md|sarif|json — downloads a review's report as a file. The
 * session is looked up like every other route (cookie → actor); the review service decides 401, 403
 * and 404; a review without a report yet is 409.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { actorFromHeaders, toHeaders } from "../../auth/auth.ts";
import type { Services } from "../../context.ts";
import { DomainError, invalid, HTTP_STATUS } from "../../errors.ts";
import { isExportFormat, loadExportInput, renderExport } from "../../review/index.ts";

export const EXPORT_ROUTE = /^\/api\/reviews\/([0-9a-f-]{36})\/export$/i;

/** RFC 6266: an ASCII fallback plus the UTF-8 name (ours are ASCII already; kept correct anyway). */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export async function handleExport(
  services: Pick<Services, "auth" | "db" | "reviews">,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
    res.end(JSON.stringify(body));
  };
  try {
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, { message: "Use GET to download an export." });
    const uid = EXPORT_ROUTE.exec(path)?.[1];
    if (!uid) return send(404, { message: `Nothing at ${path}.` });
    const format = new URL(req.url ?? "/", "http://x").searchParams.get("format");
    if (!isExportFormat(format))
      throw invalid(`Choose an export format: ?format=md, sarif or json (got ${format ?? "nothing"}).`);
    const actor = await actorFromHeaders(services.auth, toHeaders(req.headers));
    const input = await loadExportInput(services, actor, uid.toLowerCase());
    const out = renderExport(format, input);
    res.writeHead(200, {
      "content-type": out.contentType,
      "content-disposition": contentDisposition(out.filename),
      "content-length": Buffer.byteLength(out.body),
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    res.end(req.method === "HEAD" ? undefined : out.body);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err; // the request handler logs it and answers 500
    send(HTTP_STATUS[err.kind], { message: err.message });
  }
}
