/**
 * Retries, errors, cancellation, cut and stalled streams: the same behaviour for every provider,
 * each run through its real SDK against the scripted server.
 */
import { describe, expect, it } from "vitest";
import { MODEL, clientFor, collect, scriptedServerForFile, startServer } from "./test-support.ts";
import { PROVIDERS, type StreamEvent, userText } from "./types.ts";

const server = await scriptedServerForFile();

describe.each(PROVIDERS)("%s", (provider) => {
  it("retries a 429, honouring retry-after, then succeeds", async () => {
    server.setScript([{ times: 1, status: 429, message: "slow down", retryAfter: 0.15 }, { text: "ok" }]);
    const started = Date.now();
    const { stop } = await collect(clientFor(server, provider).stream({ messages: [userText("x")] }));

    expect(stop).toEqual({ type: "stop", reason: "end_turn", content: [{ type: "text", text: "ok" }] });
    expect(server.requests).toHaveLength(2);
    // retry-after 0.15 s beats the 1–5 ms backoff configured for tests.
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("gives up on a 500 after the configured retries, naming provider, model and status", async () => {
    server.setScript([{ status: 500, message: "upstream exploded" }]);
    const { events, stop } = await collect(
      clientFor(server, provider, { maxRetries: 2 }).stream({ messages: [userText("x")] }),
    );

    expect(server.requests).toHaveLength(3);
    expect(events).toHaveLength(1); // no usage: nothing was billed
    expect(stop.reason).toBe("error");
    expect(stop.error).toMatchObject({
      kind: "server",
      status: 500,
      provider,
      model: MODEL[provider],
      retryable: true,
      attempts: 3,
    });
    expect(stop.error?.message).toBe(`${provider} (${MODEL[provider]}) 500: upstream exploded (after 3 attempts)`);
  });

  it("does not retry other 4xx", async () => {
    server.setScript([{ status: 401, message: "invalid x-api-key" }]);
    const { stop } = await collect(clientFor(server, provider).stream({ messages: [userText("x")] }));

    expect(server.requests).toHaveLength(1);
    expect(stop.error).toMatchObject({ kind: "auth", status: 401, retryable: false, attempts: 1 });
    expect(stop.error?.message).toContain("invalid x-api-key");
  });

  it("stops promptly when the caller aborts mid-stream", async () => {
    // 60 chunks 50 ms apart: the whole answer takes 3 s, so finishing well before means we did not wait.
    server.setScript([{ text: Array.from({ length: 60 }, (_, i) => `w${i} `), chunkDelayMs: 50 }]);
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const started = Date.now();
    for await (const ev of clientFor(server, provider).stream({
      messages: [userText("x")],
      signal: controller.signal,
    })) {
      events.push(ev);
      if (ev.type === "text_delta" && ev.text === "w1 ") controller.abort();
    }
    const stop = events.at(-1);

    expect(stop).toMatchObject({
      type: "stop",
      reason: "error",
      error: { kind: "aborted", retryable: false },
      content: [{ type: "text", text: "w0 w1 " }],
    });
    expect(Date.now() - started).toBeLessThan(2000); // generous: CI machines are slow, the point is not 3 s
    expect(server.requests).toHaveLength(1);
  });

  it("ends a stream cut mid-answer with an error stop, keeping the partial content", async () => {
    // Event index 4 is inside the text for every format (after the headers-like first events).
    server.setScript([{ text: ["one ", "two ", "three ", "four ", "five ", "six "], cutAfter: 5 }]);
    const { stop, text } = await collect(clientFor(server, provider).stream({ messages: [userText("x")] }));

    expect(stop.reason).toBe("error");
    expect(stop.error).toMatchObject({ kind: "network", retryable: true, attempts: 1 });
    expect(text.length).toBeGreaterThan(0);
    expect(stop.content).toEqual([{ type: "text", text }]);
    expect(server.requests).toHaveLength(1); // text was already shown: no silent retry
  });

  it("treats a response that ends cleanly but early as cut, not as a finished answer", async () => {
    server.setScript([{ text: ["one ", "two ", "three ", "four ", "five ", "six "], endAfter: 5 }]);
    const { stop, text } = await collect(clientFor(server, provider).stream({ messages: [userText("x")] }));

    expect(stop.error).toMatchObject({ kind: "network", retryable: true });
    expect(stop.error?.message).toContain("the connection closed before the response finished");
    expect(stop.content).toEqual([{ type: "text", text }]);
  });

  it("retries transparently when the connection drops before anything was shown", async () => {
    server.setScript([{ times: 1, text: "lost", cutAfter: 1 }, { text: "second try" }]);
    const { stop } = await collect(clientFor(server, provider).stream({ messages: [userText("x")] }));

    expect(stop).toMatchObject({ reason: "end_turn", content: [{ type: "text", text: "second try" }] });
    expect(server.requests).toHaveLength(2);
  });

  it("abandons a stalled stream after the idle timeout", async () => {
    server.setScript([{ text: ["a ", "b ", "c ", "d ", "e "], stallAfter: 5 }]);
    const started = Date.now();
    const { stop } = await collect(
      clientFor(server, provider, { idleTimeoutMs: 150 }).stream({ messages: [userText("x")] }),
    );

    expect(stop.error).toMatchObject({ kind: "timeout" });
    expect(stop.error?.message).toContain("no data from the provider for 150 ms");
    expect(Date.now() - started).toBeLessThan(3000); // without the guard it would hang until the test times out
  });
});

it("times out waiting for response headers and retries", async () => {
  server.setScript([{ times: 1, delayMs: 400, text: "late" }, { text: "on time" }]);
  const { stop } = await collect(
    clientFor(server, "anthropic", { requestTimeoutMs: 100 }).stream({ messages: [userText("x")] }),
  );
  expect(stop).toMatchObject({ reason: "end_turn", content: [{ type: "text", text: "on time" }] });
  expect(server.requests).toHaveLength(2);
});

it("reports a refused connection as a network error after retrying", async () => {
  const dead = await startServer();
  await dead.close();
  const { stop } = await collect(clientFor(dead, "openai", { maxRetries: 1 }).stream({ messages: [userText("x")] }));
  expect(stop.error).toMatchObject({ kind: "network", attempts: 2 });
  expect(stop.error?.message).toMatch(/^openai \(gpt-5\.4\): connection failed/);
});
