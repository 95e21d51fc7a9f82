import { describe, expect, it } from "vitest";
import { IngestError } from "./errors.ts";
import { classifyGitFailure, scrub, type GitFailureContext } from "./git-errors.ts";
import { progressWatcher } from "./git.ts";
import { resolveLimits } from "./limits.ts";
import type { IngestProgress } from "./progress.ts";

const ctx: GitFailureContext = { url: "https://github.com/o/r.git", hasToken: false, secrets: [] };

describe("classifyGitFailure", () => {
  it("tells no-repository, auth, unreachable, host key, TLS and missing refs apart", () => {
    const cases: [string, string, Partial<GitFailureContext>?][] = [
      ["fatal: remote error: access denied or repository not exported: /nope", "repo_not_found"],
      ["remote: Repository not found.\nfatal: repository 'https://github.com/o/r.git/' not found", "repo_not_found"],
      ["fatal: 'o/r.git' does not appear to be a git repository", "repo_not_found"],
      ["fatal: could not read Username for 'https://github.com': terminal prompts disabled", "auth_failed"],
      ["git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.", "auth_failed"],
      ["fatal: unable to access 'https://x/': The requested URL returned error: 403", "auth_failed"],
      ["Host key verification failed.\nfatal: Could not read from remote repository.", "auth_failed"],
      [
        "fatal: unable to access 'https://nohost.invalid/r/': Could not resolve host: nohost.invalid",
        "host_unreachable",
      ],
      ["ssh: connect to host 10.0.0.1 port 22: Connection timed out", "host_unreachable"],
      ["fatal: unable to access 'https://x/': SSL certificate problem: self-signed certificate", "host_unreachable"],
      [
        "warning: Could not find remote branch nope to clone.\nfatal: Remote branch nope not found in upstream origin",
        "ref_not_found",
        { ref: { kind: "branch", name: "nope" } },
      ],
      [
        "fatal: remote error: upload-pack: not our ref 1111111111111111111111111111111111111111",
        "ref_not_found",
        { ref: { kind: "commit", name: "1".repeat(40) } },
      ],
      ["fatal: the remote end hung up unexpectedly", "git_failed"],
      ["fatal: unable to access 'https://x/o/r.git/': The requested URL returned error: 302", "redirect_refused"],
      ["fatal: unable to access 'https://x/o/r.git/': The requested URL returned error: 301", "redirect_refused"],
    ];
    for (const [stderr, code, extra] of cases) {
      const err = classifyGitFailure(stderr, { ...ctx, ...extra });
      expect(err, stderr).toBeInstanceOf(IngestError);
      expect(err.code, stderr).toBe(code);
    }
  });

  it("says a token was refused when one was given", () => {
    expect(
      classifyGitFailure("fatal: Authentication failed for 'https://x/'", { ...ctx, hasToken: true }).message,
    ).toMatch(/token was refused/);
    expect(classifyGitFailure("fatal: Authentication failed for 'https://x/'", ctx).message).toMatch(
      /private or does not exist/,
    );
  });

  it("scrubs secrets in raw, URL-encoded and base64 forms", () => {
    const secret = "tok/en+secret=";
    const text = `a ${secret} b ${encodeURIComponent(secret)} c ${Buffer.from(secret).toString("base64")}`;
    expect(scrub(text, [secret])).toBe("a *** b *** c ***");
  });
});

describe("progressWatcher", () => {
  it("reports download progress and stops past the total-size cap", () => {
    const seen: IngestProgress[] = [];
    const watch = progressWatcher({
      limits: resolveLimits({ maxTotalBytes: 3 * 1024 * 1024 }),
      progress: (p) => seen.push(p),
    });
    watch("Receiving objects:  45% (45/100), 1.50 MiB | 1.00 MiB/s");
    watch("Updating files:  50% (10/20)");
    expect(seen).toEqual([
      { phase: "cloning", bytes: 1572864, files: 0 },
      { phase: "checking_out", bytes: 0, files: 10 },
    ]);
    expect(() => watch("Receiving objects:  90% (90/100), 3.10 MiB | 1.00 MiB/s")).toThrow(
      /download passed the total-size cap \(3 MB; INGEST_MAX_TOTAL_MB\)/,
    );
  });
});
