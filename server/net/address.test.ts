import { describe, expect, it } from "vitest";
import { classifyAddress, isPublicAddress, parseIpLiteral } from "./address.ts";

describe("classifyAddress", () => {
  it("sorts IPv4 addresses into public and each internal range", () => {
    const cases: [string, string][] = [
      ["8.8.8.8", "public"],
      ["140.82.112.3", "public"],
      ["127.0.0.1", "loopback"],
      ["127.255.255.254", "loopback"],
      ["10.0.0.1", "private"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["172.32.0.1", "public"],
      ["192.168.1.1", "private"],
      ["100.64.0.1", "private"],
      ["100.127.255.255", "private"],
      ["100.128.0.1", "public"],
      ["169.254.169.254", "link_local"],
      ["224.0.0.1", "multicast"],
      ["239.255.255.250", "multicast"],
      ["0.0.0.0", "unspecified"],
      ["0.1.2.3", "unspecified"],
      ["255.255.255.255", "reserved"],
      ["192.0.2.10", "reserved"],
      ["198.18.0.1", "reserved"],
    ];
    for (const [ip, cls] of cases) expect(classifyAddress(ip), ip).toBe(cls);
  });

  it("sorts IPv6 addresses, including every form that embeds an IPv4 address", () => {
    const cases: [string, string][] = [
      ["2606:4700::1111", "public"],
      ["::1", "loopback"],
      ["::", "unspecified"],
      ["fc00::1", "private"],
      ["fd12:3456::1", "private"],
      ["fe80::1", "link_local"],
      ["fe80::1%eth0", "link_local"],
      ["febf::1", "link_local"],
      ["fec0::1", "private"],
      ["ff02::1", "multicast"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:169.254.169.254", "link_local"],
      ["::ffff:a9fe:a9fe", "link_local"],
      ["::ffff:10.0.0.1", "private"],
      ["::ffff:8.8.8.8", "public"],
      ["::ffff:0:127.0.0.1", "loopback"],
      ["64:ff9b::10.0.0.1", "private"],
      ["64:ff9b::8.8.8.8", "public"],
      ["2002:7f00:1::", "loopback"],
      ["2002:0808:0808::1", "public"],
      ["::127.0.0.1", "reserved"],
      ["2001:db8::1", "reserved"],
      ["2001:0:4136:e378::1", "reserved"],
      ["[::1]", "loopback"],
    ];
    for (const [ip, cls] of cases) expect(classifyAddress(ip), ip).toBe(cls);
  });

  it("reads the decimal, octal and hex host forms inet_aton accepts as the address they are", () => {
    const loopback = [
      "2130706433",
      "0x7f.1",
      "0x7f000001",
      "0177.0.0.1",
      "017700000001",
      "127.1",
      "127.0.1",
      "0x7F.0.0.1",
    ];
    for (const host of loopback) {
      expect(parseIpLiteral(host)?.address, host).toBe("127.0.0.1");
      expect(classifyAddress(host), host).toBe("loopback");
    }
    expect(parseIpLiteral("0")?.address).toBe("0.0.0.0");
    expect(parseIpLiteral("0xa9fea9fe")?.address).toBe("169.254.169.254");
    expect(parseIpLiteral("3232235777")?.address).toBe("192.168.1.1");
    expect(parseIpLiteral("127.0.0.1.")?.address).toBe("127.0.0.1");
    expect(parseIpLiteral("[::ffff:127.0.0.1]")).toMatchObject({ family: 6, address: "::ffff:7f00:1" });
  });

  it("leaves host names (and malformed numbers) to DNS", () => {
    for (const host of ["github.com", "1e100.net", "08.1.2.3", "256.1.1.1", "1.2.3.4.5", "4294967296", "", "::g"])
      expect(parseIpLiteral(host), host).toBeNull();
    // "0x" is 0 to inet_aton: judged as 0.0.0.0 rather than looked up.
    expect(parseIpLiteral("0x")?.address).toBe("0.0.0.0");
    expect(() => classifyAddress("github.com")).toThrow(/not an IP address/);
    expect(isPublicAddress("8.8.8.8")).toBe(true);
    expect(isPublicAddress("10.1.2.3")).toBe(false);
  });
});
