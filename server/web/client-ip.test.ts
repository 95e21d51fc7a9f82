import { describe, expect, it } from "vitest";
import { clientIp, plainIp, trustedProxies } from "./client-ip.ts";

const none = trustedProxies([]);
const proxies = trustedProxies(["10.0.0.1", "192.168.0.0/16", "fd00::/8"]);

describe("plainIp", () => {
  it.each([
    ["10.1.2.3", "10.1.2.3"],
    [" 10.1.2.3 ", "10.1.2.3"],
    ["::ffff:10.1.2.3", "10.1.2.3"],
    ["::FFFF:10.1.2.3", "10.1.2.3"],
    ["10.1.2.3:5000", "10.1.2.3"],
    ["[::1]:8080", "::1"],
    ["[2001:DB8::1]", "2001:db8::1"],
    ["2001:db8::1", "2001:db8::1"],
  ])("%s → %s", (raw, plain) => expect(plainIp(raw)).toBe(plain));

  it.each(["", "unknown", "evil.example.com", "10.1.2", "1.2.3.4, 5.6.7.8", "999.1.1.1", undefined])(
    "%s is not an address",
    (raw) => expect(plainIp(raw)).toBeUndefined(),
  );
});

describe("clientIp", () => {
  it("without trusted proxies the socket address is the client, whatever X-Forwarded-For says", () => {
    expect(clientIp("203.0.113.7", "1.1.1.1", none)).toBe("203.0.113.7");
    expect(clientIp("::ffff:203.0.113.7", ["1.1.1.1", "2.2.2.2"], none)).toBe("203.0.113.7");
    expect(clientIp("127.0.0.1", "10.9.9.9", none)).toBe("127.0.0.1");
  });

  it("a peer that is not a listed proxy cannot speak for anyone else", () => {
    expect(clientIp("203.0.113.7", "198.51.100.1", proxies)).toBe("203.0.113.7");
  });

  it("through a trusted proxy, the rightmost address that is not a proxy is the client", () => {
    expect(clientIp("10.0.0.1", "198.51.100.1", proxies)).toBe("198.51.100.1");
    // The client prepended a fake; the proxies appended the real hops on the right.
    expect(clientIp("10.0.0.1", "6.6.6.6, 198.51.100.1, 192.168.4.4", proxies)).toBe("198.51.100.1");
    expect(clientIp("::ffff:10.0.0.1", ["6.6.6.6", "198.51.100.1"], proxies)).toBe("198.51.100.1");
    expect(clientIp("fd00::2", "2001:db8::5", proxies)).toBe("2001:db8::5");
  });

  it("a trusted proxy that sent no header is itself the client", () => {
    expect(clientIp("10.0.0.1", undefined, proxies)).toBe("10.0.0.1");
  });

  it("garbage in the chain stops the walk at the last believed hop", () => {
    expect(clientIp("10.0.0.1", "198.51.100.1, not-an-ip", proxies)).toBe("10.0.0.1");
    expect(clientIp("10.0.0.1", "not-an-ip, 192.168.1.1", proxies)).toBe("192.168.1.1");
    expect(clientIp("10.0.0.1", "", proxies)).toBe("10.0.0.1");
  });

  it("every hop a proxy: the leftmost is the best we know", () => {
    expect(clientIp("10.0.0.1", "192.168.1.1, 192.168.1.2", proxies)).toBe("192.168.1.1");
  });

  it("no socket address: unknown", () => {
    expect(clientIp(undefined, "1.1.1.1", proxies)).toBeUndefined();
  });
});
