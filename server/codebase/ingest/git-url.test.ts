import { describe, expect, it } from "vitest";
import { IngestError, type IngestErrorCode } from "./errors.ts";
import { checkCommitId, isValidRefName, parseGitUrl } from "./git-url.ts";

function refusal(url: string): IngestErrorCode {
  try {
    parseGitUrl(url);
  } catch (err) {
    expect(err).toBeInstanceOf(IngestError);
    return (err as IngestError).code;
  }
  throw new Error(`${url} was accepted`);
}

describe("parseGitUrl", () => {
  it("accepts https, ssh (URL and scp-like) and git://", () => {
    expect(parseGitUrl("https://github.com/owner/repo.git")).toEqual({
      url: "https://github.com/owner/repo.git",
      transport: "https",
      host: "github.com",
      port: 443,
      origin: "https://github.com",
    });
    expect(parseGitUrl("git://[0:0:0:0:0:0:0:1]/r")).toMatchObject({ host: "[::1]", port: 9418 });
    expect(parseGitUrl("ssh://git@h.example:2222/r")).toMatchObject({ port: 2222 });
    expect(parseGitUrl("git@h.example:r")).toMatchObject({ port: 22 });
    expect(parseGitUrl("HTTPS://gitlab.example.com:8443/g/r").url).toBe("https://gitlab.example.com:8443/g/r");
    expect(parseGitUrl("HTTPS://gitlab.example.com:8443/g/r").origin).toBe("https://gitlab.example.com:8443");
    expect(parseGitUrl("ssh://git@host.example/r.git")).toMatchObject({ transport: "ssh", host: "host.example" });
    expect(parseGitUrl("git@github.com:owner/repo.git")).toMatchObject({ transport: "ssh", host: "github.com" });
    expect(parseGitUrl("  git://127.0.0.1:9418/repo  ")).toMatchObject({
      transport: "git",
      url: "git://127.0.0.1:9418/repo",
    });
  });

  it("refuses ext::, fd::, file:, http, local paths and anything starting with -", () => {
    expect(refusal("ext::sh -c touch% /tmp/pwned")).toBe("transport_refused");
    expect(refusal("ext::sh")).toBe("transport_refused");
    expect(refusal("fd::17")).toBe("transport_refused");
    expect(refusal("file:///etc/passwd")).toBe("transport_refused");
    expect(refusal("file:/etc")).toBe("transport_refused");
    expect(refusal("FILE:///etc")).toBe("transport_refused");
    expect(refusal("http://github.com/o/r")).toBe("transport_refused");
    expect(refusal("ftp://example.com/r")).toBe("transport_refused");
    expect(refusal("/srv/repos/r.git")).toBe("transport_refused");
    expect(refusal("./r")).toBe("transport_refused");
    expect(refusal("C:\\repos\\r")).toBe("transport_refused");
    expect(refusal("c:/repos/r")).toBe("transport_refused");
    expect(refusal("-uhelp")).toBe("transport_refused");
    expect(refusal("--upload-pack=touch /tmp/pwned")).toBe("transport_refused");
    expect(refusal("ssh://-oProxyCommand=touch%20x/r")).toBe("bad_url");
    expect(refusal("-oProxyCommand=x:r")).toBe("transport_refused");
    expect(refusal("host:-r")).toBe("transport_refused");
  });

  it("refuses credentials in the URL, blanks and junk", () => {
    expect(refusal("https://user:pass@github.com/o/r")).toBe("bad_url");
    expect(refusal("https://ghp_token@github.com/o/r")).toBe("bad_url");
    expect(refusal("")).toBe("bad_url");
    expect(refusal("https://github.com/o/r name")).toBe("bad_url");
    expect(refusal("https://github.com/")).toBe("bad_url");
    expect(refusal("https:///nohost")).toBe("bad_url");
  });
});

describe("ref names and commit ids", () => {
  it("follows git-check-ref-format", () => {
    for (const ok of ["main", "release/1.2", "v1.0.0", "feature/x-y_z", "user@host"])
      expect(isValidRefName(ok), ok).toBe(true);
    for (const bad of [
      "-main",
      "--upload-pack=x",
      "a..b",
      "a b",
      "a~1",
      "a^",
      "a:b",
      "x.lock",
      "a//b",
      "/a",
      "a/",
      ".hidden",
      "a@{1}",
      "",
      "@",
    ]) {
      expect(isValidRefName(bad), bad).toBe(false);
    }
  });

  it("wants full hashes", () => {
    expect(checkCommitId("A".repeat(40))).toBe("a".repeat(40));
    expect(() => checkCommitId("abc123")).toThrow(/full commit hash/);
    expect(() => checkCommitId("-" + "a".repeat(39))).toThrow(IngestError);
  });
});
