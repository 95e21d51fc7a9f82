import diagnostics from "node:diagnostics_channel";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { afterFirstRequest, signallingFetch } from "./request-sent.ts";

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end("ok"));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const post = (body: string) => signallingFetch(url, { method: "POST", body }).then((r) => r.text());

describe("afterFirstRequest", () => {
  it("lets the caller's work go once the request's body is on the connection, before the reply", async () => {
    await post("warm"); // a kept-alive connection, as to a provider after the first request
    const order: string[] = [];
    const sent = () => order.push("body sent");
    diagnostics.subscribe("undici:request:bodySent", sent);
    try {
      const reply = await afterFirstRequest(
        () => order.push("onSent"),
        async () => {
          const text = await post("x".repeat(50_000));
          order.push("reply");
          return text;
        },
      );
      expect(reply).toBe("ok");
    } finally {
      diagnostics.unsubscribe("undici:request:bodySent", sent);
    }
    expect(order).toEqual(["body sent", "onSent", "reply"]);
  });

  it("calls onSent once for several requests, and once when the work makes none or fails", async () => {
    let calls = 0;
    await afterFirstRequest(
      () => calls++,
      async () => {
        await post("a");
        await post("b");
      },
    );
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      afterFirstRequest(
        () => calls++,
        async () => 42,
      ),
    ).resolves.toBe(42);
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      afterFirstRequest(
        () => calls++,
        async () => {
          throw new Error("the provider refused");
        },
      ),
    ).rejects.toThrow("the provider refused");
    expect(calls).toBe(1);
  });

  it("is a plain fetch outside afterFirstRequest, and each caller hears only of its own request", async () => {
    await expect(post("plain")).resolves.toBe("ok");
    const heard: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await Promise.all([
      afterFirstRequest(
        () => heard.push("first"),
        async () => {
          await gate; // makes no request until the second caller's went
          await post("1");
        },
      ),
      afterFirstRequest(
        () => heard.push("second"),
        async () => {
          await post("2");
          release();
        },
      ),
    ]);
    expect(heard).toEqual(["second", "first"]);
  });
});
