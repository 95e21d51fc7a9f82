/**
 * The GitHub adapter of the Forge interface, over one installation's Octokit.
 *
 * - A review is one `POST …/pulls/{n}/reviews` (event COMMENT) carrying every inline comment; each
 *   comment's body ends with a hidden marker naming its finding's fingerprint, so the posted comments
 *   read back (`…/reviews/{id}/comments`) are matched to findings whatever order GitHub returns.
 * - A 422 from that call means a line is no longer part of the diff: StaleLineError, and the caller
 *   moves comments to the summary and tries again.
 * - Review threads are resolved through GraphQL (REST has no such endpoint): the comment's thread is
 *   looked up among the PR's threads, then `resolveReviewThread`.
 */
import { writeFile } from "node:fs/promises";
import type { InstallationOctokit } from "./client.ts";
import {
  ForgeGoneError,
  StaleLineError,
  type CheckResult,
  type DiffFile,
  type FileChange,
  type Forge,
  type ForgeReaction,
  type InlineComment,
  type PostedComment,
  type PullInfo,
  type PullRef,
} from "../types.ts";
import { fingerprintOf, withMarker } from "../markers.ts";

const MAX_ANNOTATIONS = 50; // GitHub takes at most 50 annotations per check-run request

function split(repo: string): { owner: string; repo: string } {
  const [owner, name] = repo.split("/");
  if (!owner || !name) throw new Error(`Not a repository name: ${repo}`);
  return { owner, repo: name };
}

function status(err: unknown): number | undefined {
  return (err as { status?: number }).status;
}

/** 404 / 410 on the PR or repository: it was deleted or the installation lost access. */
async function orGone<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (status(err) === 404 || status(err) === 410)
      throw new ForgeGoneError(`${what} is gone on GitHub (deleted, or the App lost access to it).`);
    throw err;
  }
}

const THREADS_QUERY = `query($owner: String!, $repo: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        nodes { id isResolved comments(first: 1) { nodes { databaseId } } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}`;
const RESOLVE_MUTATION = `mutation($threadId: ID!) { resolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } } }`;

interface ThreadsPage {
  repository: {
    pullRequest: {
      reviewThreads: {
        nodes: { id: string; isResolved: boolean; comments: { nodes: { databaseId: number }[] } }[];
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      };
    } | null;
  } | null;
}

/** The reactions on a review comment (GitHub sends no webhook for them: read when a PR's job runs). */
/** Files changed from one commit to another; null when GitHub cannot compare them or cut the list short. */
async function compare(
  octokit: InstallationOctokit,
  repo: string,
  from: string,
  to: string,
): Promise<FileChange[] | null> {
  try {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
      ...split(repo),
      basehead: `${from}...${to}`,
      per_page: 100,
    });
    // A comparison GitHub cut short (300+ files) is no basis for an increment.
    if (!data.files || data.files.length >= 300) return null;
    return data.files.map((f) => ({
      path: f.filename,
      status: f.status,
      ...(f.previous_filename ? { previousPath: f.previous_filename } : {}),
    }));
  } catch (err) {
    if (status(err) === 404 || status(err) === 422) return null;
    throw err;
  }
}

/** One file's bytes at a commit (the contents API); null when GitHub does not send it inline. */
async function contentAt(
  octokit: InstallationOctokit,
  repo: string,
  sha: string,
  path: string,
): Promise<Buffer | null> {
  try {
    const { data } = await octokit.rest.repos.getContent({ ...split(repo), path, ref: sha });
    // Over 1 MB GitHub sends no content inline ("none"); a folder or a link is no file to apply.
    if (Array.isArray(data) || data.type !== "file" || !("encoding" in data) || data.encoding !== "base64") return null;
    return Buffer.from(data.content, "base64");
  } catch (err) {
    if (status(err) === 404) return null;
    throw err;
  }
}

async function reactionsOn(octokit: InstallationOctokit, ref: PullRef, commentId: string): Promise<ForgeReaction[]> {
  const rows = await octokit.paginate(octokit.rest.reactions.listForPullRequestReviewComment, {
    ...split(ref.repo),
    comment_id: Number(commentId),
    per_page: 100,
  });
  return rows.map((r) => ({ id: String(r.id), author: r.user?.login ?? "ghost", content: r.content }));
}

/** A reply in a review comment's thread (GitHub takes replies to a thread's first comment only). */
async function replyTo(octokit: InstallationOctokit, ref: PullRef, commentId: string, body: string): Promise<void> {
  await octokit.rest.pulls.createReplyForReviewComment({
    ...split(ref.repo),
    pull_number: ref.number,
    comment_id: Number(commentId),
    body,
  });
}

export function gitHubForge(octokit: InstallationOctokit): Forge {
  return {
    kind: "github",

    async pull(ref: PullRef): Promise<PullInfo> {
      const { data } = await orGone(`Pull request #${ref.number} of ${ref.repo}`, () =>
        octokit.rest.pulls.get({ ...split(ref.repo), pull_number: ref.number }),
      );
      return {
        number: data.number,
        title: data.title,
        url: data.html_url,
        state: data.state === "closed" ? "closed" : "open",
        draft: data.draft ?? false,
        headRef: data.head.ref,
        headSha: data.head.sha,
        baseSha: data.base.sha,
      };
    },

    async diff(ref: PullRef): Promise<DiffFile[]> {
      const files = await orGone(`Pull request #${ref.number} of ${ref.repo}`, () =>
        octokit.paginate(octokit.rest.pulls.listFiles, { ...split(ref.repo), pull_number: ref.number, per_page: 100 }),
      );
      return files.map((f) => ({ path: f.filename, status: f.status, patch: f.patch }));
    },

    changedBetween: (repo, from, to) => compare(octokit, repo, from, to),
    fileAt: (repo, sha, path) => contentAt(octokit, repo, sha, path),

    async downloadArchive(repo: string, sha: string, dest: string): Promise<void> {
      const { data } = await orGone(`Commit ${sha.slice(0, 12)} of ${repo}`, () =>
        octokit.rest.repos.downloadZipballArchive({ ...split(repo), ref: sha }),
      );
      await writeFile(dest, Buffer.from(data as ArrayBuffer));
    },

    async postReview(ref, review): Promise<PostedComment[]> {
      const where = split(ref.repo);
      let reviewId: number;
      try {
        const { data } = await octokit.rest.pulls.createReview({
          ...where,
          pull_number: ref.number,
          commit_id: review.commitSha,
          event: "COMMENT",
          body: review.body,
          comments: review.comments.map((c: InlineComment) => ({
            path: c.path,
            line: c.line,
            side: "RIGHT",
            ...(c.startLine !== undefined && c.startLine < c.line
              ? { start_line: c.startLine, start_side: "RIGHT" }
              : {}),
            body: withMarker(c.body, c.fingerprint),
          })),
        });
        reviewId = data.id;
      } catch (err) {
        if (status(err) === 422)
          throw new StaleLineError(
            `GitHub refused the review's comments (${(err as Error).message.slice(0, 300)}): a line is no longer part of the diff.`,
          );
        throw err;
      }
      if (review.comments.length === 0) return [];
      const posted = await octokit.paginate(octokit.rest.pulls.listCommentsForReview, {
        ...where,
        pull_number: ref.number,
        review_id: reviewId,
        per_page: 100,
      });
      return posted.flatMap((c) => {
        const fingerprint = fingerprintOf(c.body ?? "");
        return fingerprint ? [{ fingerprint, commentId: String(c.id), threadId: null }] : [];
      });
    },

    async upsertSummary(ref, commentId, body): Promise<string> {
      const where = split(ref.repo);
      if (commentId) {
        try {
          await octokit.rest.issues.updateComment({ ...where, comment_id: Number(commentId), body });
          return commentId;
        } catch (err) {
          if (status(err) !== 404) throw err; // someone deleted it: write a new one
        }
      }
      const { data } = await octokit.rest.issues.createComment({ ...where, issue_number: ref.number, body });
      return String(data.id);
    },

    async upsertCheck(ref, checkId, result: CheckResult): Promise<string> {
      const where = split(ref.repo);
      const output = {
        title: result.title,
        summary: result.summary.slice(0, 65_000),
        annotations: result.annotations.slice(0, MAX_ANNOTATIONS).map((a) => ({
          path: a.path,
          start_line: a.startLine,
          end_line: a.endLine,
          annotation_level: a.level,
          title: a.title.slice(0, 255),
          message: a.message.slice(0, 64_000),
        })),
      };
      const common = {
        ...where,
        name: "Argus",
        status: "completed" as const,
        conclusion: result.conclusion,
        completed_at: new Date().toISOString(),
        output,
        ...(result.detailsUrl ? { details_url: result.detailsUrl } : {}),
      };
      // A check run belongs to one commit: a new head gets a new run (the old one stays on its commit).
      if (checkId) {
        const { data: existing } = await octokit.rest.checks.get({ ...where, check_run_id: Number(checkId) });
        if (existing.head_sha === result.headSha) {
          await octokit.rest.checks.update({ ...common, check_run_id: Number(checkId) });
          return checkId;
        }
      }
      const { data } = await octokit.rest.checks.create({ ...common, head_sha: result.headSha });
      return String(data.id);
    },

    async resolveThread(ref, commentId) {
      const where = split(ref.repo);
      let after: string | null = null;
      for (;;) {
        const page: ThreadsPage = await octokit.graphql<ThreadsPage>(THREADS_QUERY, {
          owner: where.owner,
          repo: where.repo,
          number: ref.number,
          after,
        });
        const threads = page.repository?.pullRequest?.reviewThreads;
        if (!threads) return;
        const thread = threads.nodes.find((t) => String(t.comments.nodes[0]?.databaseId) === commentId);
        if (thread) {
          if (!thread.isResolved) await octokit.graphql(RESOLVE_MUTATION, { threadId: thread.id });
          return;
        }
        if (!threads.pageInfo.hasNextPage) return;
        after = threads.pageInfo.endCursor;
      }
    },

    reactions: (ref, commentId) => reactionsOn(octokit, ref, commentId),
    reply: (ref, commentId, body) => replyTo(octokit, ref, commentId, body),
  };
}
