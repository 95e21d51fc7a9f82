/**
 * The one interface every forge adapter implements (GitHub now; GitLab next), and the shapes that
 * cross it. The PR review job (pr-review.ts, publish.ts) speaks only this interface, so what it
 * decides — which findings go inline, what the summary says, which threads are resolved — is the
 * same on every forge.
 */
import { z } from "zod";

/** A pull/merge request as the adapter addresses it: the repository's full name and its number. */
export interface PullRef {
  repo: string;
  number: number;
}

export const pullInfoSchema = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  url: z.string(),
  state: z.enum(["open", "closed"]),
  draft: z.boolean(),
  headRef: z.string(),
  headSha: z.string().min(1),
  baseSha: z.string().min(1),
});
export type PullInfo = z.infer<typeof pullInfoSchema>;

/** One changed file of the diff (base…head); `patch` is absent for binary or very large files. */
export interface DiffFile {
  path: string;
  status: "added" | "modified" | "removed" | "renamed" | "copied" | "changed" | "unchanged";
  patch?: string;
}

/** One file of a comparison of two commits; `previousPath` for a rename. */
export interface FileChange {
  path: string;
  status: DiffFile["status"];
  previousPath?: string;
}

/** An inline comment on a line of the new side of the diff (a range: startLine…line). */
export interface InlineComment {
  fingerprint: string;
  path: string;
  line: number;
  startLine?: number;
  body: string;
}

/** An inline comment as the forge stored it: its id (to reply) and its thread (to resolve). */
export interface PostedComment {
  fingerprint: string;
  commentId: string;
  threadId: string | null;
}

export type CheckConclusion = "success" | "neutral" | "failure";

export interface CheckAnnotation {
  path: string;
  startLine: number;
  endLine: number;
  level: "notice" | "warning" | "failure";
  title: string;
  message: string;
}

export interface CheckResult {
  headSha: string;
  conclusion: CheckConclusion;
  title: string;
  summary: string;
  annotations: CheckAnnotation[];
  /** Where the check's "details" link goes (the PR's room). */
  detailsUrl?: string;
}

/** The forge refused an inline comment's line (GitHub 422: no longer part of the diff). */
export class StaleLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StaleLineError";
  }
}

/** What the forge calls a pull request, for the text Argus writes there (GitLab: a merge request). */
export const requestNoun = (kind: Forge["kind"]) => (kind === "gitlab" ? "merge request" : "pull request");

/** The repository or pull request is gone (deleted, or the installation lost access). */
export class ForgeGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ForgeGoneError";
  }
}

/** One forge account's view of its repositories (a GitHub App installation, a GitLab token). */
export interface Forge {
  readonly kind: "github" | "gitlab";
  pull(ref: PullRef): Promise<PullInfo>;
  /** The files changed base…head as the forge shows them (their patches decide which lines take comments). */
  diff(ref: PullRef): Promise<DiffFile[]>;
  /**
   * Files changed from one commit to another (a push's increment), removed ones included; null when
   * the forge cannot compare them (a force-push left `from` unreachable) or cut the list short: the
   * caller then reviews the whole PR again.
   */
  changedBetween(repo: string, from: string, to: string): Promise<FileChange[] | null>;
  /** The head commit's tree as a zip archive written to `dest` (fetched with the installation's token). */
  downloadArchive(repo: string, sha: string, dest: string): Promise<void>;
  /**
   * One file's bytes at a commit (a push's changed file, applied onto the previous snapshot); null when
   * the forge does not hand it over inline (too large, not a file): the caller takes the whole archive.
   * Absent: every import takes the archive.
   */
  fileAt?(repo: string, sha: string, path: string): Promise<Buffer | null>;
  /** One review: its body and its inline comments. StaleLineError when a line is not in the diff. */
  postReview(
    ref: PullRef,
    review: { commitSha: string; body: string; comments: InlineComment[] },
  ): Promise<PostedComment[]>;
  /** Writes the one summary comment: created when `commentId` is null, else edited. Returns its id. */
  upsertSummary(ref: PullRef, commentId: string | null, body: string): Promise<string>;
  /** Creates the `Argus` check for the head commit, or replaces the one given. Returns its id. */
  upsertCheck(ref: PullRef, checkId: string | null, result: CheckResult): Promise<string>;
  /** Marks the thread of one of Argus's inline comments resolved (its finding was fixed). */
  resolveThread(ref: PullRef, commentId: string): Promise<void>;
  /** Answers in a comment's thread. */
  reply(ref: PullRef, commentId: string, body: string): Promise<void>;
  /**
   * Where a file's lines at a commit are shown (an answer's citations link there); absent: GitHub's
   * form, `<repo>/blob/<sha>/<path>#L<n>-L<m>` (server/forges/mentions.ts).
   */
  lineUrl?(pullUrl: string, sha: string, path: string, line: number, endLine?: number): string;
  /**
   * The reactions on one of Argus's inline comments (👍 / 👎 count as verdicts). GitHub sends no
   * webhook for reactions: they are read when the PR's jobs run (server/forges/feedback.ts).
   * Absent: the forge's reactions are not read.
   */
  reactions?(ref: PullRef, commentId: string): Promise<ForgeReaction[]>;
}

/** A reaction on a comment: its forge id, who, and which (GitHub's names: "+1", "-1", "heart" …). */
export interface ForgeReaction {
  id: string;
  author: string;
  content: string;
}
