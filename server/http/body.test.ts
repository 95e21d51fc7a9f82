import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendJson } from "./body.ts";

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/early") {
      // Refuses at once, before the body arrived (as an upload route does on bad input).
      sendJson(res, 400, { message: "refused early" });
      req.resume();
      return;
    }
    req.resume();
    req.on("end", () => sendJson(res, 200, { ok: true }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function post(path: string, bytes: number): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: "POST", headers: { "content-length": bytes } },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
      },
    );
    req.on("error", reject);
    req.end(Buffer.alloc(bytes, 0x61));
  });
}

describe("sendJson", () => {
  it("closes the connection when it answers before the request body was read", async () => {
    expect(await post("/early", 8 * 1024 * 1024)).toEqual({ status: 400, connection: "close" });
  });

  it("keeps the connection when the body was read to its end", async () => {
    const r = await post("/full", 1024);
    expect(r.status).toBe(200);
    expect(r.connection).not.toBe("close");
  });
});
