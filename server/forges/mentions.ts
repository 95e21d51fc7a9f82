/**
 * `@argus` on a pull request. A comment (issue comment, review comment, or a reply to one of Argus's
 * inline comments) that mentions `@argus`:
 *  - `@argus review` starts the review — the way a repository set to `on request` is reviewed (one
 *    set `off` never is) — and Argus replies with the room's link;
 *  - anything else is an Ask Argus question (server/ask: the same answer loop as the web app's) over
 *    the PR's head snapshot — the PR's latest review (its room streams the answer), or the head
 *    imported for it when the PR was never reviewed. A reply to an inline comment asks about that
 *    comment's finding. When the answer ends (the runner tells the forge service), it is posted as a
 *    reply, its `path:line` references linked to the forge's file lines at the head commit.
 *
 * GitLab's merge request notes take the same path (gitlab/notes.ts): a note is a `review` comment whose
 * `inReplyTo` is its discussion, so the answer is a reply in that discussion.
 *
 * A reply to an Argus comment that does not mention `@argus` is feedback (feedback.ts).
 */
import type { Config } from "../config.ts";
import type { Db, ForgePull } from "../db/client.ts";
import { publicError } from "../errors-public.ts";
import type { Logger } from "../logger.ts";
import type { ForgeQuestion } from "../ask/service.ts";
import { mentionedQuestion } from "../shared/ask.ts";
import { findCodeRefs } from "../shared/code-refs.ts";
import { forgePersonId, forgePersonName } from "../shared/forge-people.ts";
import type { JobMap } from "../jobs/kinds.ts";
import type { CommentJob, PullJob } from "./github/intake.ts";
import { roomUrl } from "./publish.ts";
import { linkRepo, recordPull, type PullOutcome } from "./pull-job.ts";
import type { Forge, PullRef } from "./types.ts";
import { ForgeGoneError, requestNoun } from "./types.ts";

export type AnswerJob = JobMap["forge.answer"];

/** Where a line range of a file at a commit is shown on the forge (GitHub's form unless the adapter says). */
export function lineUrl(forge: Forge, pullUrl: string, sha: string, file: string, line: number, endLine?: number) {
  if (forge.lineUrl) return forge.lineUrl(pullUrl, sha, file, line, endLine);
  const repoUrl = pullUrl.replace(/\/pull\/\d+\/?$/, "");
  const anchor = endLine && endLine > line ? `#L${line}-L${endLine}` : `#L${line}`;
  return `${repoUrl}/blob/${sha}/${file.split("/").map(encodeURIComponent).join("/")}${anchor}`;
}

/** The answer's `path:line` references as links to the forge's lines (inside code spans they stay text). */
export function linkCodeRefs(text: string, link: (file: string, line: number, endLine?: number) => string): string {
  let out = "";
  let at = 0;
  for (const ref of findCodeRefs(text)) {
    const before = text.slice(0, ref.start);
    const inCode = (before.match(/`/g)?.length ?? 0) % 2 === 1;
    if (inCode) continue;
    out += text.slice(at, ref.start) + `[${text.slice(ref.start, ref.end)}](${link(ref.path, ref.line, ref.endLine)})`;
    at = ref.end;
  }
  return out + text.slice(at);
}

export interface MentionDeps {
  db: Db;
  config: Config;
  log: Logger;
  forgeFor: (installationId: string) => Promise<Forge>;
  runPull: (job: PullJob & { requested?: boolean }) => Promise<PullOutcome>;
  /** The PR's head imported as the project's snapshot (null when the import failed). */
  importHead: (forge: Forge, repo: Awaited<ReturnType<typeof linkRepo>>, sha: string) => Promise<string | null>;
  ask: (question: ForgeQuestion) => Promise<{ answerUid: string }>;
  enqueueAnswer: (job: AnswerJob) => Promise<void>;
  /** A reply to an Argus comment that is not a question (feedback.ts). */
  onReply: (job: CommentJob) => Promise<void>;
}

/** Says something in the comment's place: in its review thread, or as a new comment on the PR. */
async function respond(forge: Forge, ref: PullRef, kind: "review" | "issue", commentId: string, body: string) {
  if (kind === "review") await forge.reply(ref, commentId, body);
  // A new conversation comment (upsertSummary with no id creates one; the summary's own id is not touched).
  else await forge.upsertSummary(ref, null, body);
}

type PullOutcomeSkip = Extract<PullOutcome, { skipped: unknown }>["skipped"];

/**
 * What `@argus review` is answered when no review starts (on_request and draft cannot happen: it was
 * asked), in the forge's words (`noun`: pull request, or merge request on GitLab).
 */
function reviewAnswer(skipped: PullOutcomeSkip, noun: string): string {
  const answers: Record<PullOutcomeSkip, string> = {
    off: "Argus is switched off for this repository (Settings → Integrations).",
    on_request: "This repository is reviewed on request.",
    closed: `This ${noun} is closed: Argus reviews open ones.`,
    draft: `This ${noun} is a draft.`,
    reviewed: "This head commit is already reviewed",
    gone: `This ${noun} is gone on the forge.`,
    nothing: "Nothing to review: the changes since the last review touch no file Argus reviews.",
    import: "The head commit could not be imported; the project's page in Argus says why.",
  };
  return answers[skipped];
}

export function createMentions(deps: MentionDeps) {
  const { db, config, log } = deps;

  async function review(job: CommentJob, forge: Forge, ref: PullRef, replyTo: string): Promise<void> {
    const info = await forge.pull(ref);
    const outcome = await deps.runPull({
      installationId: job.installationId,
      repo: job.repo,
      number: job.number,
      action: "opened",
      headSha: info.headSha,
      requested: true,
    });
    const head = `\`${info.headSha.slice(0, 7)}\``;
    let body: string;
    if ("started" in outcome)
      body = `Reviewing ${head} now — watch it live and discuss each finding: [the review room](${roomUrl(config, outcome.started)}).`;
    else {
      const pull = await db.forgePull.findFirst({
        where: { number: job.number, repo: { installationId: job.installationId, externalId: String(job.repo.id) } },
      });
      const room = pull?.lastReviewUid ? ` — [the review room](${roomUrl(config, pull.lastReviewUid)})` : "";
      body =
        outcome.skipped === "reviewed"
          ? `${head} is already reviewed${room}.`
          : reviewAnswer(outcome.skipped, requestNoun(forge.kind));
    }
    await respond(forge, ref, job.comment.kind, replyTo, body);
  }

  /** The review (and finding) a question is asked over, or the project once the head is imported. */
  async function target(
    job: CommentJob,
    forge: Forge,
    repo: Awaited<ReturnType<typeof linkRepo>>,
    pull: ForgePull,
  ): Promise<Pick<ForgeQuestion, "reviewUid" | "fingerprint" | "projectUid"> | null> {
    if (job.comment.inReplyTo !== undefined) {
      const posted = await db.forgeComment.findFirst({
        where: { pullId: pull.id, commentId: String(job.comment.inReplyTo) },
      });
      const reviewUid = posted?.reviewUid ?? pull.lastReviewUid;
      if (posted && reviewUid) return { reviewUid, fingerprint: posted.fingerprint };
    }
    if (
      pull.lastReviewUid &&
      (await db.review.findUnique({ where: { uid: pull.lastReviewUid }, select: { id: true } }))
    )
      return { reviewUid: pull.lastReviewUid };
    // Never reviewed (a repository on request): the head is imported for the question.
    if (!(await deps.importHead(forge, repo, pull.headSha))) return null;
    return { projectUid: repo.project.uid };
  }

  async function question(job: CommentJob, text: string, forge: Forge, ref: PullRef, replyTo: string) {
    const repo = await linkRepo(db, job);
    if (repo.mode === "off") return; // quiet by design: a repository set to off gets no answers either
    const pull = await recordPull(db, repo.id, job.number, await forge.pull(ref));
    const where = await target(job, forge, repo, pull);
    if (!where)
      return respond(
        forge,
        ref,
        job.comment.kind,
        replyTo,
        reviewAnswer("import", requestNoun(forge.kind)).replace("head commit", "code"),
      );
    const askerId = forgePersonId(forge.kind, job.comment.author);
    let answerUid: string;
    try {
      ({ answerUid } = await deps.ask({
        ...where,
        question: text,
        asker: { id: askerId, name: forgePersonName(askerId)! },
      }));
    } catch (err) {
      const { message } = publicError(err, { doing: "answering an @argus question", log });
      return respond(forge, ref, job.comment.kind, replyTo, message);
    }
    const sha =
      pull.lastReviewUid === where.reviewUid
        ? (pull.reviewingSha ?? pull.lastReviewedSha ?? pull.headSha)
        : pull.headSha;
    await db.forgeMention.create({
      data: { pullId: pull.id, answerUid, commentId: replyTo, commentKind: job.comment.kind, sha },
    });
    // A quick answer (search results) may have ended before the mention was written: reply now.
    const answer = await db.askMessage.findUnique({ where: { uid: answerUid }, select: { finishedAt: true } });
    if (answer?.finishedAt) await deps.enqueueAnswer({ answerUid });
  }

  return {
    async commentJob(job: CommentJob): Promise<void> {
      const forge = await deps.forgeFor(job.installationId);
      const ref: PullRef = { repo: job.repo.fullName, number: job.number };
      const text = mentionedQuestion(job.comment.body);
      if (text === null) return deps.onReply(job);
      // GitHub replies only to a thread's first comment; GitLab to the discussion (its note's inReplyTo).
      const replyTo = String(job.comment.inReplyTo ?? job.comment.id);
      try {
        if (/^review\b/i.test(text)) return await review(job, forge, ref, replyTo);
        await question(job, text, forge, ref, replyTo);
      } catch (err) {
        if (err instanceof ForgeGoneError) return log.warn({ pull: ref }, err.message);
        throw err;
      }
    },

    /** An answer ended: when it answers a PR's `@argus`, the job replying there is queued. */
    async answerEnded(answerUid: string): Promise<void> {
      const mention = await db.forgeMention.findUnique({ where: { answerUid }, select: { answeredAt: true } });
      if (mention && !mention.answeredAt) await deps.enqueueAnswer({ answerUid });
    },

    /** Posts an ended answer as the reply (once: the mention is claimed first). */
    async answerJob(job: AnswerJob): Promise<void> {
      const mention = await db.forgeMention.findUnique({
        where: { answerUid: job.answerUid },
        include: { pull: { include: { repo: true } } },
      });
      const answer = await db.askMessage.findUnique({ where: { uid: job.answerUid }, include: { thread: true } });
      if (!mention || mention.answeredAt || !answer?.finishedAt) return;
      const { count } = await db.forgeMention.updateMany({
        where: { id: mention.id, answeredAt: null },
        data: { answeredAt: new Date() },
      });
      if (count === 0) return;
      const { pull } = mention;
      const forge = await deps.forgeFor(pull.repo.installationId);
      const ref: PullRef = { repo: pull.repo.fullName, number: pull.number };
      const review = answer.thread.reviewId
        ? await db.review.findUnique({ where: { id: answer.thread.reviewId }, select: { uid: true } })
        : null;
      const where = review ? `[the review room](${roomUrl(config, review.uid)})` : "the project's page in Argus";
      const text =
        answer.status === "done"
          ? linkCodeRefs(answer.body, (file, line, end) => lineUrl(forge, pull.url, mention.sha, file, line, end))
          : `Argus could not answer: ${answer.error ?? answer.status}`;
      const body = `${text}\n\n<sub>Asked with @argus — the conversation goes on in ${where}.</sub>`;
      await respond(forge, ref, mention.commentKind === "review" ? "review" : "issue", mention.commentId, body);
    },
  };
}
export type Mentions = ReturnType<typeof createMentions>;
