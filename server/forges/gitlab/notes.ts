/**
 * GitLab merge request notes: a Note Hook becomes the same `forge.comment` job GitHub's comments
 * queue (server/forges/mentions.ts answers it), so `@argus …` on a merge request is a question or a
 * review request as on a pull request. The note is a `review` comment whose `inReplyTo` is its
 * discussion: the answer is a reply in that discussion, and a note in one of Argus's finding
 * discussions asks about that finding (its discussion id is the posted comment's id).
 *
 * Only notes that mention `@argus` are queued: GitLab has no reactions to poll on a comment (GitHub's
 * reason to take every comment), and feedback replies are GitHub's path for now.
 *
 * Never a loop: every note Argus writes ends with a marker (a finding's, the summary's, or
 * NOTE_MARKER on answers and replies — added by the adapter, forge.ts), and a note ending with one is
 * ignored; so are notes by GitLab bot users (an access token acts as one), as GitHub's bots are.
 */
import { z } from "zod";
import { mentionedQuestion } from "../../shared/ask.ts";
import type { CommentJob } from "../github/intake.ts";
import { fingerprintOf, SUMMARY_MARKER } from "../markers.ts";

/** The end of every note Argus writes that carries no finding or summary marker (answers, verdict replies). */
export const NOTE_MARKER = "<!-- argus:note -->";

/** The longest note a comment job carries (server/jobs/kinds.ts). */
const NOTE_MAX = 65_536;

/** GitLab's bot users: a project or group access token acts as `project_<id>_bot_<hash>` / `group_…`. */
const BOT_USERNAME = /^(project|group)_\d+_bot(_?[0-9a-z]+)?$/i;

/** The body as Argus posts it on GitLab: marked as Argus's own unless a finding or summary marker ends it. */
export function withNoteMarker(body: string): string {
  return isArgusNote(body) ? body : `${body}\n\n${NOTE_MARKER}`;
}

/** Whether a note is one Argus wrote (it ends with one of Argus's markers). */
export function isArgusNote(body: string): boolean {
  const end = body.replace(/\r\n/g, "\n").trimEnd();
  return fingerprintOf(end) !== null || end.endsWith(SUMMARY_MARKER) || end.endsWith(NOTE_MARKER);
}

const noteEvent = z.object({
  object_kind: z.literal("note"),
  user: z.object({ username: z.string().min(1).max(100) }),
  project: z.object({ id: z.number().int().positive(), path_with_namespace: z.string().min(3).max(300) }),
  object_attributes: z.object({
    id: z.number().int().positive(),
    note: z.string(),
    noteable_type: z.string(),
    discussion_id: z
      .string()
      .regex(/^[0-9a-f]{1,100}$/)
      .optional(),
    system: z.boolean().optional(),
    // Absent before GitLab 16: every note hook was a new note then.
    action: z.string().optional(),
  }),
  merge_request: z.object({ iid: z.number().int().positive() }).optional(),
});

/** The comment job of a Note Hook (without its connection), or why it is ignored (200) or refused (400). */
export type NoteIntake =
  { job: Omit<CommentJob, "installationId">; name: string } | { ignored: string } | { invalid: string };

export function commentOfNote(json: unknown): NoteIntake {
  const parsed = noteEvent.safeParse(json);
  if (!parsed.success) return { invalid: "The note delivery lacks its project, note or author." };
  const { user, project, object_attributes: note, merge_request: mr } = parsed.data;
  if (note.noteable_type !== "MergeRequest" || !mr)
    return { ignored: "Ignored: a note that is not on a merge request." };
  if (note.action !== undefined && note.action !== "create")
    return { ignored: `Ignored: Argus does not act on note.${note.action.slice(0, 40)}.` };
  if (note.system) return { ignored: "Ignored: a system note." };
  if (isArgusNote(note.note)) return { ignored: "Ignored: Argus's own note." };
  if (BOT_USERNAME.test(user.username)) return { ignored: "Ignored: a bot's note." };
  if (mentionedQuestion(note.note) === null) return { ignored: "Ignored: a note that does not mention @argus." };
  if (!note.discussion_id) return { invalid: "The note delivery lacks its discussion_id." };
  if (note.note.length > NOTE_MAX)
    return { ignored: `Ignored: a note over ${NOTE_MAX.toLocaleString("en")} characters is no question.` };
  return {
    name: `!${mr.iid} of ${project.path_with_namespace}`,
    job: {
      repo: { id: project.id, fullName: project.path_with_namespace },
      number: mr.iid,
      comment: {
        id: note.id,
        kind: "review",
        body: note.note,
        author: user.username,
        inReplyTo: note.discussion_id,
      },
    },
  };
}
