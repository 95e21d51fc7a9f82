import { describe, expect, it } from "vitest";
import { captureLog } from "../../test/helpers/log.ts";
import type { Services } from "../context.ts";
import { LlmError } from "../llm/index.ts";
import { createCallerFactory, publicProcedure, router, type TrpcContext } from "./init.ts";

describe("errors from a procedure", () => {
  const app = router({
    leaky: publicProcedure.query(() => {
      throw new Error("SQLITE_CORRUPT: database disk image is malformed (/root/secret/argus.db)");
    }),
    provider: publicProcedure.query(() => {
      throw new LlmError({ kind: "auth", provider: "openai", model: "gpt-5", status: 401, detail: "bad key" });
    }),
  });

  function caller() {
    const captured = captureLog();
    const ctx = {
      services: { log: captured.log } as unknown as Services,
      actor: null,
      appendResponseHeader: () => {},
    } as TrpcContext;
    return { call: createCallerFactory(app)(ctx), captured };
  }

  it("unexpected: a 500 with a sentence and a reference; the log has the reference and the detail", async () => {
    const { call, captured } = caller();
    const err = (await call.leaky().catch((e: unknown) => e)) as { code: string; message: string };
    expect(err.code).toBe("INTERNAL_SERVER_ERROR");
    expect(err.message).toMatch(/^Something went wrong while answering the request\. .*reference: [0-9a-f]{8}\.$/);
    expect(err.message).not.toMatch(/SQLITE|\/root/);
    const reference = /reference: ([0-9a-f]{8})/.exec(err.message)![1];
    const logged = captured.lines().find((l) => l.reference === reference);
    expect(logged).toMatchObject({ path: "leaky" });
    expect(JSON.stringify(logged)).toContain("/root/secret/argus.db");
  });

  it("written for users (a provider's refusal): its message is kept", async () => {
    const { call } = caller();
    await expect(call.provider()).rejects.toThrow("openai (gpt-5) 401: bad key");
  });
});
