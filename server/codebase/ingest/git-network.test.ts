/**
 * SSRF through git URLs: the address check with an injected resolver, then real clones of internal
 * addresses against a listener that counts connections (none may arrive), and an https redirect.
 */
import net from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { IngestError } from "./errors.ts";
import { ingestGit } from "./git.ts";
import { planGitConnection, type GitNetworkPolicy } from "./git-network.ts";
import { parseGitUrl } from "./git-url.ts";
import {
  expectRefusal,
  freePort,
  hasOpenssl,
  makeTlsFixture,
  sandbox,
  startHttpsRecorder,
  type HttpsRecorder,
  type Sandbox,
  type TlsFixture,
} from "./test-support.ts";

const answer =
  (...addresses: string[]) =>
  async () =>
    addresses;

async function refusal(url: string, policy: GitNetworkPolicy): Promise<IngestError> {
  const err = await planGitConnection(parseGitUrl(url), policy).catch((e: unknown) => e);
  expect(err, url).toBeInstanceOf(IngestError);
  return err as IngestError;
}

describe("planGitConnection with an injected resolver", () => {
  it("pins https, git:// and ssh to the one address it checked", async () => {
    const v4 = { resolve: answer("140.82.112.3") };
    const plan = (url: string, policy: GitNetworkPolicy = v4) => planGitConnection(parseGitUrl(url), policy);
    expect(await plan("https://Git.Example.com/o/r.git")).toEqual({
      fetchUrl: "https://Git.Example.com/o/r.git",
      config: [["http.curloptResolve", "git.example.com:443:140.82.112.3"]],
      sshOptions: [],
      address: "140.82.112.3",
    });
    expect((await plan("https://git.example.com:8443/o/r.git")).config).toEqual([
      ["http.curloptResolve", "git.example.com:8443:140.82.112.3"],
    ]);
    expect((await plan("git://git.example.com/r.git")).fetchUrl).toBe("git://140.82.112.3:9418/r.git");
    expect((await plan("git@git.example.com:o/r.git")).sshOptions).toEqual([
      "HostName=140.82.112.3",
      "HostKeyAlias=git.example.com",
    ]);
    expect((await plan("ssh://git@git.example.com:2222/o/r.git")).sshOptions).toEqual([
      "HostName=140.82.112.3",
      "HostKeyAlias=[git.example.com]:2222",
    ]);
    const v6 = { resolve: answer("2606:4700::1111") };
    expect((await plan("https://git.example.com/o/r", v6)).config).toEqual([
      ["http.curloptResolve", "git.example.com:443:[2606:4700::1111]"],
    ]);
    expect((await plan("git://git.example.com/r", v6)).fetchUrl).toBe("git://[2606:4700::1111]:9418/r");
  });

  it("refuses a name when any of its addresses is internal, with one message for every kind", async () => {
    const messages = new Set<string>();
    for (const addresses of [
      ["10.0.0.5"],
      ["140.82.112.3", "127.0.0.1"],
      ["169.254.169.254"],
      ["100.64.1.1"],
      ["::ffff:169.254.169.254"],
      ["fd00::1"],
      ["fe80::1"],
      ["::1"],
      ["224.0.0.1"],
      ["0.0.0.0"],
      ["not-an-address"],
    ]) {
      const err = await refusal("https://rebind.example.com/o/r.git", { resolve: answer(...addresses) });
      expect(err.code, addresses.join()).toBe("address_refused");
      messages.add(err.message);
    }
    expect([...messages]).toEqual([
      '"https://rebind.example.com/o/r.git" is refused: Argus only fetches repositories from hosts on the public internet, and "rebind.example.com" is, or resolves to, a loopback, private, link-local or otherwise internal address. Use the repository\'s public URL, or ask the operator to allow this host (GIT_ALLOWED_HOSTS).',
    ]);
  });

  it("judges IP-literal hosts in every spelling without asking DNS", async () => {
    const resolve = vi.fn(answer("140.82.112.3"));
    for (const url of [
      "https://10.0.0.1/o/r.git",
      "https://169.254.169.254/latest/meta-data",
      "git://127.0.0.1:6379/x",
      "https://2130706433/o/r", // WHATWG already reads this as 127.0.0.1
      "git://2130706433/r", // git:// hosts are opaque to WHATWG: read here the way inet_aton does
      "git://0x7f.1/r",
      "git://0177.0.0.1/r",
      "ssh://git@0x7f000001/r",
      "git@127.1:o/r.git",
      "git://[0:0:0:0:0:ffff:7f00:1]/r",
      "https://[fd00:0:0:0:0:0:0:1]/o/r",
    ]) {
      expect((await refusal(url, { resolve })).code, url).toBe("address_refused");
    }
    expect(resolve).not.toHaveBeenCalled();
  });

  it("says a name DNS does not know is unreachable", async () => {
    const failing = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    for (const resolve of [failing, answer()]) {
      const err = await refusal("https://nope.example.com/o/r.git", { resolve });
      expect(err.code).toBe("host_unreachable");
      expect(err.message).toMatch(/could not be found/);
    }
  });

  it("lets allowed hosts through unpinned — by name, or by address in any spelling — and nothing else", async () => {
    const resolve = vi.fn(answer("127.0.0.1"));
    const policy = { allowedHosts: ["GitLab.Corp", "127.0.0.1", "[::1]"], resolve };
    for (const url of ["https://gitlab.corp/g/r.git", "git://0x7f.1:9418/r", "git://[0:0:0:0:0:0:0:1]/r"])
      expect(await planGitConnection(parseGitUrl(url), policy), url).toEqual({
        fetchUrl: parseGitUrl(url).url,
        config: [],
        sshOptions: [],
      });
    expect(resolve).not.toHaveBeenCalled();
    // "localhost" is a different name, even though it resolves to an allowed address.
    expect((await refusal("git://localhost/r", policy)).code).toBe("address_refused");
    expect((await refusal("https://gitlab.corp.evil.example/r", policy)).code).toBe("address_refused");
  });

  it("checks nothing for the operator's own command line", async () => {
    const resolve = vi.fn(answer("127.0.0.1"));
    const plan = await planGitConnection(parseGitUrl("git://127.0.0.1/r"), { anyAddress: true, resolve });
    expect(plan.fetchUrl).toBe("git://127.0.0.1/r");
    expect(resolve).not.toHaveBeenCalled();
  });
});

/** A TCP listener that counts the connections it gets (and closes each at once). */
async function listener(host = "127.0.0.1"): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  let count = 0;
  const server = net.createServer((s) => {
    count++;
    s.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, resolve);
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

let sb: Sandbox;
beforeEach(async () => {
  sb = await sandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

describe("cloning an internal address", () => {
  it("is refused before git runs: no connection reaches the target", async () => {
    const target = await listener();
    try {
      const p = target.port;
      for (const url of [
        `git://127.0.0.1:${p}/app`,
        `git://localhost:${p}/app`, // the system resolver answers 127.0.0.1 (or ::1)
        `git://2130706433:${p}/app`,
        `git://0x7f.1:${p}/app`,
        `https://127.0.0.1:${p}/o/app.git`,
        `https://localhost:${p}/o/app.git`,
        `ssh://git@127.0.0.1:${p}/app`,
      ]) {
        await expectRefusal(sb, () => ingestGit({ url, dest: sb.dest }), "address_refused", /GIT_ALLOWED_HOSTS/);
      }
      expect(target.connections()).toBe(0);
      // The listener does count: an allowed host reaches it.
      await ingestGit({
        url: `git://127.0.0.1:${p}/app`,
        dest: sb.dest,
        network: { allowedHosts: ["127.0.0.1"] },
      }).catch(() => undefined);
      expect(target.connections()).toBeGreaterThan(0);
    } finally {
      await target.close();
    }
  });

  it("answers the same whether the port is open or closed", async () => {
    const open = await listener();
    const closed = await freePort();
    try {
      const message = async (port: number) => {
        const err = await ingestGit({ url: `git://127.0.0.1:${port}/app`, dest: sb.dest }).catch((e: unknown) => e);
        return (err as Error).message.replace(String(port), "PORT");
      };
      expect(await message(open.port)).toBe(await message(closed));
      expect(open.connections()).toBe(0);
    } finally {
      await open.close();
    }
  });
});

describe.skipIf(!hasOpenssl)("an https remote that redirects", () => {
  let tls: TlsFixture;
  let server: HttpsRecorder;
  let elsewhere: Awaited<ReturnType<typeof listener>>;
  let savedCa: string | undefined;

  beforeAll(async () => {
    tls = await makeTlsFixture();
    elsewhere = await listener();
    server = await startHttpsRecorder(tls, (req, res) => {
      res.writeHead(302, { location: `https://localhost:${elsewhere.port}${req.url}` });
      res.end();
    });
    savedCa = process.env.GIT_SSL_CAINFO;
    process.env.GIT_SSL_CAINFO = tls.caFile;
  });
  afterAll(async () => {
    if (savedCa === undefined) delete process.env.GIT_SSL_CAINFO;
    else process.env.GIT_SSL_CAINFO = savedCa;
    await server?.stop();
    await elsewhere?.close();
    await tls?.cleanup();
  });

  it("is not followed: the redirect target gets no connection and the user is told why", async () => {
    await expectRefusal(
      sb,
      () =>
        ingestGit({
          url: `https://127.0.0.1:${server.port}/o/app.git`,
          dest: sb.dest,
          network: { allowedHosts: ["127.0.0.1"] },
        }),
      "redirect_refused",
      /does not follow redirects/,
    );
    expect(server.requests).toHaveLength(1);
    expect(elsewhere.connections()).toBe(0);
  });
});
