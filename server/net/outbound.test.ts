/** The SSRF guard for web-app pipelines' requests: internal addresses refused after DNS, the operator's allow list honoured. */
import { describe, expect, it } from "vitest";
import { outboundCheck } from "./outbound.ts";

const dns: Record<string, string[]> = {
  "public.example": ["93.184.216.34"],
  "rebind.example": ["93.184.216.34", "10.0.0.5"],
  "metadata.example": ["169.254.169.254"],
};
const resolve = async (host: string) => dns[host] ?? [];

describe("outboundCheck", () => {
  const check = outboundCheck({ resolve, allowedHosts: ["llm.internal", "127.0.0.1"] });
  it("lets public hosts through, by name or address", async () => {
    await expect(check("https://public.example/v1", "base_url")).resolves.toBeUndefined();
    await expect(check("http://8.8.8.8:8080/search", "retriever_url")).resolves.toBeUndefined();
  });

  it.each([
    ["http://localhost:11434/v1", "localhost"],
    ["http://[::1]:8000/v1", "[::1]"],
    ["http://10.1.2.3/v1", "10.1.2.3"],
    ["http://192.168.0.10/v1", "192.168.0.10"],
    ["http://169.254.169.254/latest/meta-data", "169.254.169.254"],
    ["http://224.0.0.1/", "224.0.0.1"],
    ["http://metadata.example/", "metadata.example"],
    ["http://rebind.example/", "rebind.example"],
  ])("refuses %s (loopback, private, link-local, multicast, or a name resolving to one)", async (url, host) => {
    const localhost = outboundCheck({ resolve: async (h) => (h === "localhost" ? ["127.0.0.1"] : resolve(h)) });
    await expect(localhost(url, "backend_configs.openai.base_url")).rejects.toThrow(
      `backend_configs.openai.base_url ${url} is refused: pipelines run from the web app only reach hosts on the public internet, and ${host} is, or resolves to, a loopback, private, link-local or otherwise internal address. Ask the operator to allow this host (PIPELINES_ALLOWED_HOSTS).`,
    );
  });

  it("honours the operator's allow list, and says when a name does not resolve or the URL is not http(s)", async () => {
    await expect(check("http://127.0.0.1:3000/v1", "base_url")).resolves.toBeUndefined();
    await expect(check("http://LLM.internal./v1", "base_url")).resolves.toBeUndefined();
    await expect(check("http://nowhere.example/", "base_url")).rejects.toThrow(
      "base_url: the host nowhere.example could not be found from the Argus server; check the URL",
    );
    await expect(check("file:///etc/passwd", "base_url")).rejects.toThrow(
      'base_url must be an http(s) URL, got "file:///etc/passwd"',
    );
  });
});
