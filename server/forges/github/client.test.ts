/**
 * The GitHub client goes through the outbound policy it is handed: a GitHub (Enterprise) host on an
 * internal address is refused unless the operator allowed its host:port, and then the App's JWT and
 * the installation token work as GitHub's do.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../../../test/helpers/github-stand-in.ts";
import { createOutboundPolicy, OutboundRefusedError } from "../../net/outbound.ts";
import { createGitHubApp } from "./client.ts";
import { gitHubForge } from "./forge.ts";

let gh: GitHubStandIn;
beforeAll(async () => {
  gh = await startGitHubStandIn();
});
afterAll(() => gh.close());

function app(allow: string[]) {
  return createGitHubApp({
    app: { appId: gh.appId, privateKey: gh.privateKey, webhookSecret: gh.webhookSecret },
    apiUrl: gh.url,
    fetch: createOutboundPolicy({ allow }).fetch,
    log: pino({ level: "silent" }),
  });
}

describe("the GitHub client", () => {
  it("is refused an internal GitHub host the operator did not allow", async () => {
    const forge = gitHubForge(await app([]).installation(gh.installationId));
    const err = await forge.pull({ repo: "acme/none", number: 1 }).catch((e: unknown) => e);
    // Octokit wraps the refusal; its message names the setting that would allow the host.
    expect(String((err as Error).message)).toContain("OUTBOUND_ALLOWED_HOSTS");
    expect((err as { cause?: unknown }).cause ?? err).toBeInstanceOf(OutboundRefusedError);
    expect(gh.requests).toEqual([]);
    expect(gh.tokensMinted).toEqual([]);
  });

  it("reaches an allowed host:port with the App's JWT, then the installation's token", async () => {
    const repo = gh.addRepo("acme/web", 1);
    const sha = gh.commit(repo, { "a.txt": "a\n" });
    gh.openPull(repo, { number: 2, title: "T", headRef: "t", headSha: sha, baseSha: sha });
    const forge = gitHubForge(await app([new URL(gh.url).host]).installation(gh.installationId));
    expect(await forge.pull({ repo: "acme/web", number: 2 })).toMatchObject({ number: 2, title: "T", headSha: sha });
    expect(gh.tokensMinted).toHaveLength(1);
    expect(gh.rejected).toEqual([]);
  });

  it("verifies a delivery's signature as GitHub computes it", async () => {
    const d = gh.delivery("ping", { zen: "Keep it logically awesome." });
    const github = app([]);
    expect(await github.verify(d.body, d.headers["x-hub-signature-256"]!)).toBe(true);
    expect(await github.verify(`${d.body} `, d.headers["x-hub-signature-256"]!)).toBe(false);
  });
});
