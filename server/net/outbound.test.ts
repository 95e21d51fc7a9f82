/** The outbound policy: every spelling of an internal target refused, the allow list by host:port. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboundPolicy, parseAllowEntry } from "./outbound.ts";

const dns: Record<string, string[]> = {
  "public.example": ["93.184.216.34"],
  "rebind.example": ["93.184.216.34", "10.0.0.5"],
  "loopback.example": ["127.0.0.1"],
  "v6loop.example": ["::1"],
  "metadata.example": ["169.254.169.254"],
};
const resolve = async (host: string) => dns[host] ?? [];

describe("the outbound check", () => {
  const { check } = createOutboundPolicy({ resolve, allow: ["llm.internal:8000", "127.0.0.1:3000"] });

  it("lets public hosts through, by name or address", async () => {
    await expect(check("https://public.example/v1", "base_url")).resolves.toBeUndefined();
    await expect(check("http://8.8.8.8:8080/search", "retriever_url")).resolves.toBeUndefined();
  });

  it.each([
    "http://localhost:11434/v1",
    "http://localhost:3000/",
    "http://localhost./",
    "http://LOCALHOST:8080/",
    "http://app.localhost/",
    "http://127.0.0.1:11434/",
    "http://127.1.2.3/",
    "http://[::1]:8000/v1",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:7f00:1::]/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://0x7f.1/",
    "http://0/",
    "http://0.0.0.0:8080/",
    "http://10.1.2.3/v1",
    "http://192.168.0.10/v1",
    "http://172.16.0.1/",
    "http://169.254.169.254/latest/meta-data",
    "http://[fe80::1]/",
    "http://[fd00::1]/",
    "http://224.0.0.1/",
    "http://metadata/computeMetadata/v1",
    "http://redis:6379/",
    "http://printer.local/",
    "http://metadata.google.internal/",
    "http://router.home.arpa/",
    "http://loopback.example/",
    "http://v6loop.example/",
    "http://metadata.example/",
    "http://rebind.example/",
  ])("refuses %s, saying what the operator sets", async (url) => {
    const err = await check(url, "The base URL").catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(
      /^The base URL .* is refused: Argus only sends requests to hosts on the public internet, and .* is, or resolves to, a loopback, private, link-local or otherwise internal address\. To allow it, the operator adds .*:\d+ to OUTBOUND_ALLOWED_HOSTS\.$/,
    );
  });

  it("gives one message for 127.0.0.1 and localhost, naming the host:port to allow", async () => {
    await expect(check("http://localhost:11434/v1", "The base URL")).rejects.toThrow(
      "The base URL http://localhost:11434/v1 is refused: Argus only sends requests to hosts on the public internet, and localhost is, or resolves to, a loopback, private, link-local or otherwise internal address. To allow it, the operator adds localhost:11434 to OUTBOUND_ALLOWED_HOSTS.",
    );
    await expect(check("http://127.0.0.1:11434/v1", "The base URL")).rejects.toThrow(
      "and 127.0.0.1 is, or resolves to, a loopback, private, link-local or otherwise internal address. To allow it, the operator adds 127.0.0.1:11434 to OUTBOUND_ALLOWED_HOSTS.",
    );
  });

  it("allows exactly the listed host:port, not the host's other ports", async () => {
    await expect(check("http://127.0.0.1:3000/v1", "base_url")).resolves.toBeUndefined();
    await expect(check("http://LLM.internal.:8000/v1", "base_url")).resolves.toBeUndefined();
    await expect(check("http://127.0.0.1:3001/v1", "base_url")).rejects.toThrow(
      "127.0.0.1:3001 to OUTBOUND_ALLOWED_HOSTS",
    );
    await expect(check("http://llm.internal/v1", "base_url")).rejects.toThrow(
      "llm.internal:80 to OUTBOUND_ALLOWED_HOSTS",
    );
  });

  it("a bare host entry (the deprecated PIPELINES_ALLOWED_HOSTS form) allows every port", async () => {
    const legacy = createOutboundPolicy({ resolve, allow: ["llm.internal"] });
    await expect(legacy.check("http://llm.internal:9999/", "base_url")).resolves.toBeUndefined();
  });

  it("says when a name does not resolve, the URL is not http(s), or it carries credentials", async () => {
    await expect(check("http://nowhere.example/", "base_url")).rejects.toThrow(
      "base_url: the host nowhere.example could not be found from the Argus server; check the URL",
    );
    await expect(check("file:///etc/passwd", "base_url")).rejects.toThrow(
      'base_url must be an http(s) URL, got "file:///etc/passwd"',
    );
    await expect(check("http://user:pw@public.example/", "base_url")).rejects.toThrow("must not carry a user name");
  });

  it("parses allow entries", () => {
    expect(parseAllowEntry("Host.Example.:8080")).toEqual({ host: "host.example", port: "8080" });
    expect(parseAllowEntry("[::1]:443")).toEqual({ host: "::1", port: "443" });
    expect(parseAllowEntry("fd00::5")).toEqual({ host: "fd00::5", port: null });
    expect(parseAllowEntry("http://x")).toBeNull();
  });
});

describe("the guarded fetch checks every hop", () => {
  // A real server on loopback, allowed by host:port; its redirects aim at other targets.
  let server: http.Server;
  let base: string;
  let port: number;
  const seen: { url: string; auth: string | undefined; method: string }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url ?? "", auth: req.headers.authorization, method: req.method ?? "" });
      const to = new URL(req.url ?? "/", "http://x").searchParams.get("to");
      if (req.url?.startsWith("/redirect") && to) {
        res.writeHead(Number(new URL(req.url, "http://x").searchParams.get("status") ?? 302), { location: to });
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`ok ${req.method} ${req.url}`);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const policy = () => createOutboundPolicy({ resolve, allow: [`127.0.0.1:${port}`] });

  it("follows a redirect to another allowed URL", async () => {
    const res = await policy().fetch(`${base}/redirect?to=${encodeURIComponent(`${base}/final`)}`);
    expect(await res.text()).toBe("ok GET /final");
  });

  it.each([
    ["another loopback port", () => `http://127.0.0.1:${port + 1}/x`],
    ["localhost", () => `http://localhost:${port}/x`],
    ["the metadata address", () => "http://169.254.169.254/latest"],
    ["a decimal loopback", () => "http://2130706433/"],
    ["a name resolving to loopback", () => "http://loopback.example/"],
  ])("refuses a redirect to %s, sending nothing there", async (_what, target) => {
    const before = seen.length;
    await expect(
      policy().fetch(`${base}/redirect?to=${encodeURIComponent(target())}`, { headers: { authorization: "Bearer k" } }),
    ).rejects.toThrow("is refused");
    expect(seen.length).toBe(before + 1); // only the first hop reached a server
  });

  it("refuses a chain that ends internal after several allowed hops", async () => {
    const inner = `${base}/redirect?to=${encodeURIComponent("http://[::1]:9/")}`;
    const middle = `${base}/redirect?to=${encodeURIComponent(inner)}`;
    await expect(policy().fetch(`${base}/redirect?to=${encodeURIComponent(middle)}`)).rejects.toThrow("is refused");
  });

  it("stops after five redirects", async () => {
    let url = `${base}/final`;
    for (let i = 0; i < 7; i++) url = `${base}/redirect?to=${encodeURIComponent(url)}`;
    await expect(policy().fetch(url)).rejects.toThrow("redirected more than 5 times");
  });

  it("a 303 after a POST continues as a GET", async () => {
    const res = await policy().fetch(`${base}/redirect?status=303&to=${encodeURIComponent(`${base}/after`)}`, {
      method: "POST",
      body: "x",
    });
    expect(await res.text()).toBe("ok GET /after");
  });

  it("refuses the first URL before sending anything", async () => {
    const before = seen.length;
    await expect(createOutboundPolicy({ resolve }).fetch(`${base}/final`)).rejects.toThrow("is refused");
    expect(seen.length).toBe(before);
  });
});
