/**
 * The GitLab adapter of the Forge interface, over one connection's client (its access token).
 *
 * - A merge request is addressed by its project's full path and its iid (`PullRef.number`).
 * - Inline comments are MR discussions positioned on an ADDED line of the diff version whose head is
 *   the reviewed commit (GitLab's `position` with `new_line` only). A finding over several lines
 *   whose lines are all added is shown on its whole range (`line_range`, line-range.ts); else it is
 *   anchored on the last added line of its range. Its suggestion becomes GitLab's
 *   ```` ```suggestion:-A+B ```` (A lines above the anchor, B below) so it still replaces the range.
 * - Every note Argus writes ends with a marker (notes.ts): its own notes never trigger `@argus`.
 * - GitLab has no batch review: discussions are created one by one. Each note ends with the finding's
 *   marker, and the MR's discussions are read first, so a finding already posted (by an earlier,
 *   interrupted attempt) is never posted again. GitLab refuses a position outside the diff with 400:
 *   that is a StaleLineError, as GitHub's 422.
 * - A `PostedComment`'s commentId and threadId are both the discussion's id: GitLab resolves and
 *   replies by discussion.
 * - The `Argus` check is a commit status: `success` (neutral: its description says the findings are
 *   informational) or `failed` at the repository's `fail_on`. A status has no annotations; the
 *   findings are in the discussions and the summary note.
 */
import { writeFile } from "node:fs/promises";
import { fingerprintOf, withMarker } from "../markers.ts";
import { fileLines, type FileLines } from "../diff-lines.ts";
import {
  ForgeGoneError,
  StaleLineError,
  type CheckResult,
  type DiffFile,
  type Forge,
  type InlineComment,
  type PostedComment,
  type PullInfo,
  type PullRef,
} from "../types.ts";
import { statusOf, type GitLabClient } from "./client.ts";
import { lineRangeOf } from "./line-range.ts";
import { withNoteMarker } from "./notes.ts";

/** GitLab computes a new MR's diff in the background: how often to look again before giving up. */
const DIFF_REFS_TRIES = 5;
const DIFF_REFS_WAIT_MS = 1_000;
/** A comparison with this many files or more is no basis for an increment (GitLab caps its output). */
const COMPARE_CAP = 1_000;
const DESCRIPTION_MAX = 255;

interface GitLabDiff {
  old_path: string;
  new_path: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  diff: string;
}

interface DiffVersion {
  id: number;
  head_commit_sha: string;
  base_commit_sha: string;
  start_commit_sha: string;
}

interface Discussion {
  id: string;
  notes?: { id: number; body: string }[];
}

function toDiffFile(d: GitLabDiff): DiffFile {
  const status = d.new_file ? "added" : d.deleted_file ? "removed" : d.renamed_file ? "renamed" : "modified";
  return { path: d.new_path, status, ...(d.diff ? { patch: d.diff } : {}) };
}

const mrName = (ref: PullRef) => `Merge request !${ref.number} of ${ref.repo}`;

/** 404 on the MR or project: deleted, or the token lost access to it. */
async function orGone<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (statusOf(err) === 404 || statusOf(err) === 410)
      throw new ForgeGoneError(`${what} is gone on GitLab (deleted, or the access token lost access to it).`);
    throw err;
  }
}

/** The last added line in start…end (a GitLab position on an added line needs only `new_line`). */
function anchorLine(lines: FileLines | undefined, start: number, end: number): number | null {
  if (!lines) return null;
  for (let l = end; l >= start; l--) if (lines.added.has(l)) return l;
  return null;
}

/** GitHub's ```suggestion fence, as GitLab's multi-line form relative to the anchor line. */
export function gitLabSuggestion(body: string, above: number, below: number): string {
  return body.replace(/^(`{3,})suggestion$/m, `$1suggestion:-${above}+${below}`);
}

async function diffVersion(api: GitLabClient, ref: PullRef, headSha: string) {
  const versions = (await api.mergeRequests.allDiffVersions(ref.repo, ref.number)) as unknown as DiffVersion[];
  const version = versions.find((v) => v.head_commit_sha === headSha);
  if (!version)
    throw new StaleLineError(`No diff version of ${mrName(ref)} has head ${headSha.slice(0, 12)} (a newer push).`);
  const shown = (await api.mergeRequests.showDiffVersion(ref.repo, ref.number, version.id)) as unknown as {
    diffs: GitLabDiff[];
  };
  return { version, diffs: shown.diffs };
}

/** Argus's discussions already on the MR, by the fingerprint in their first note. */
async function ourDiscussions(api: GitLabClient, ref: PullRef): Promise<Map<string, string>> {
  const all = (await api.discussions.all(ref.repo, ref.number, { perPage: 100 })) as unknown as Discussion[];
  const byFingerprint = new Map<string, string>();
  for (const d of all) {
    const fp = fingerprintOf(d.notes?.[0]?.body ?? "");
    if (fp) byFingerprint.set(fp, d.id);
  }
  return byFingerprint;
}

/**
 * One discussion per comment on the diff version of the reviewed head; every anchor checked before
 * anything is posted, and a finding already on the MR (an interrupted earlier attempt) not posted again.
 */
async function postReview(
  api: GitLabClient,
  ref: PullRef,
  review: { commitSha: string; comments: InlineComment[] },
): Promise<PostedComment[]> {
  if (review.comments.length === 0) return [];
  const { version, diffs } = await diffVersion(api, ref, review.commitSha);
  const files = new Map(diffs.filter((d) => !d.deleted_file).map((d) => [d.new_path, d]));
  // Every anchor first: a comment the diff cannot take refuses the whole review before anything is posted.
  const planned = review.comments.map((c: InlineComment) => {
    const file = files.get(c.path);
    const start = c.startLine ?? c.line;
    const line = anchorLine(file?.diff ? fileLines(file.diff) : undefined, start, c.line);
    if (!file || line === null)
      throw new StaleLineError(`${c.path}:${c.line} is not an added line of ${mrName(ref)}'s diff.`);
    return {
      c,
      file,
      line,
      lineRange: file.diff ? lineRangeOf(file.new_path, file.diff, start, c.line) : null,
      body: withMarker(gitLabSuggestion(c.body, line - start, c.line - line), c.fingerprint),
    };
  });
  const existing = await ourDiscussions(api, ref);
  const posted: PostedComment[] = [];
  for (const p of planned) {
    let id = existing.get(p.c.fingerprint);
    if (!id) {
      try {
        const d = (await api.discussions.create(ref.repo, ref.number, p.body, {
          position: {
            positionType: "text",
            baseSha: version.base_commit_sha,
            startSha: version.start_commit_sha,
            headSha: version.head_commit_sha,
            oldPath: p.file.old_path,
            newPath: p.file.new_path,
            newLine: String(p.line),
            ...(p.lineRange ? { lineRange: p.lineRange } : {}),
          },
        })) as unknown as Discussion;
        id = d.id;
      } catch (err) {
        if (statusOf(err) === 400)
          throw new StaleLineError(
            `GitLab refused a discussion on ${p.c.path}:${p.line} (${(err as Error).message.slice(0, 300)}): the line is no longer part of the diff.`,
          );
        throw err;
      }
    }
    posted.push({ fingerprint: p.c.fingerprint, commentId: id, threadId: id });
  }
  return posted;
}

/** Over this size a changed file is not fetched alone: the push takes the whole archive (as GitHub's 1 MB). */
const FILE_AT_MAX_BYTES = 1024 * 1024;

/** One file's bytes at a commit (`/repository/files/:path/raw`); null when it is not there or too large. */
async function fileAt(api: GitLabClient, repo: string, sha: string, path: string): Promise<Buffer | null> {
  let stream: ReadableStream<Uint8Array> | null;
  try {
    // As a stream: the client would read a text/* answer as a string, and the bytes must stay as they are.
    stream = (await api.repositoryFiles.showRaw(repo, path, sha, {
      lfs: true,
      asStream: true,
    } as { lfs: boolean })) as unknown as ReadableStream<Uint8Array> | null;
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
  if (!stream) return null;
  const bytes = Buffer.from(await new Response(stream).arrayBuffer());
  return bytes.length > FILE_AT_MAX_BYTES ? null : bytes;
}

/** GitLab's page of a file's lines at a commit: `<project>/-/blob/<sha>/<path>#L<n>-<m>`. */
export function blobLineUrl(pullUrl: string, sha: string, path: string, line: number, endLine?: number): string {
  const projectUrl = pullUrl.replace(/\/-\/merge_requests\/\d+\/?$/, "");
  const anchor = endLine && endLine > line ? `#L${line}-${endLine}` : `#L${line}`;
  return `${projectUrl}/-/blob/${sha}/${path.split("/").map(encodeURIComponent).join("/")}${anchor}`;
}

export function gitLabForge(api: GitLabClient, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Forge {
  return {
    kind: "gitlab",

    async pull(ref: PullRef): Promise<PullInfo> {
      for (let attempt = 1; ; attempt++) {
        const mr = (await orGone(mrName(ref), () => api.mergeRequests.show(ref.repo, ref.number))) as unknown as {
          iid: number;
          title: string;
          web_url: string;
          state: string;
          draft?: boolean;
          work_in_progress?: boolean;
          source_branch: string;
          sha: string;
          diff_refs: { base_sha: string | null; head_sha: string | null } | null;
        };
        const baseSha = mr.diff_refs?.base_sha;
        if (!baseSha && attempt < DIFF_REFS_TRIES) {
          await sleep(DIFF_REFS_WAIT_MS);
          continue;
        }
        return {
          number: mr.iid,
          title: mr.title,
          url: mr.web_url,
          state: mr.state === "opened" ? "open" : "closed",
          draft: mr.draft ?? mr.work_in_progress ?? false,
          headRef: mr.source_branch,
          headSha: mr.diff_refs?.head_sha ?? mr.sha,
          // Still no diff after waiting: the head stands in for the base (only shown, never compared).
          baseSha: baseSha ?? mr.sha,
        };
      }
    },

    async diff(ref: PullRef): Promise<DiffFile[]> {
      const diffs = (await orGone(mrName(ref), () =>
        api.mergeRequests.allDiffs(ref.repo, ref.number, { perPage: 100 }),
      )) as unknown as GitLabDiff[];
      return diffs.map(toDiffFile);
    },

    async changedBetween(repo, from, to) {
      try {
        const data = (await api.repositories.compare(repo, from, to)) as unknown as {
          diffs?: GitLabDiff[];
          compare_timeout?: boolean;
        };
        if (!data.diffs || data.compare_timeout || data.diffs.length >= COMPARE_CAP) return null;
        // Removed files and renames' old names too: a push built on the last snapshot drops them.
        return data.diffs.map((d) => ({
          path: d.new_path,
          status: toDiffFile(d).status,
          ...(d.renamed_file ? { previousPath: d.old_path } : {}),
        }));
      } catch (err) {
        if (statusOf(err) === 404) return null; // `from` is gone (a force-push, then housekeeping)
        throw err;
      }
    },

    async downloadArchive(repo, sha, dest) {
      const blob = (await orGone(`Commit ${sha.slice(0, 12)} of ${repo}`, () =>
        api.repositories.showArchive(repo, { fileType: "zip", sha }),
      )) as unknown as Blob;
      await writeFile(dest, Buffer.from(await blob.arrayBuffer()));
    },

    fileAt: (repo, sha, path) => fileAt(api, repo, sha, path),

    lineUrl: blobLineUrl,

    postReview: (ref, review) => postReview(api, ref, review),

    async upsertSummary(ref, commentId, body): Promise<string> {
      if (commentId) {
        try {
          await api.notes.edit(ref.repo, ref.number, Number(commentId), { body: withNoteMarker(body) });
          return commentId;
        } catch (err) {
          if (statusOf(err) !== 404) throw err; // someone deleted it: write a new one
        }
      }
      const note = (await api.notes.create(ref.repo, ref.number, withNoteMarker(body))) as unknown as { id: number };
      return String(note.id);
    },

    async upsertCheck(ref, _checkId, result: CheckResult): Promise<string> {
      // One status per commit and name: posting again for the same head replaces it.
      const description =
        result.conclusion === "neutral" ? `${result.title} (informational: this check does not fail)` : result.title;
      const status = (await api.commits.editStatus(
        ref.repo,
        result.headSha,
        result.conclusion === "failure" ? "failed" : "success",
        {
          name: "Argus",
          description: description.slice(0, DESCRIPTION_MAX),
          ...(result.detailsUrl ? { targetUrl: result.detailsUrl } : {}),
        },
      )) as unknown as { id: number };
      return String(status.id);
    },

    async resolveThread(ref, commentId) {
      try {
        await api.discussions.resolve(ref.repo, ref.number, commentId, true);
      } catch (err) {
        if (statusOf(err) !== 404) throw err; // the discussion was deleted: nothing to resolve
      }
    },

    async reply(ref, commentId, body) {
      await api.discussions.addNote(ref.repo, ref.number, commentId, withNoteMarker(body));
    },
  };
}
