/**
 * @mentions of members inside a chat message. The canonical form is markdown-link-like:
 * `@[Display Name](mention:<userId>)`. The composer inserts it (mentionToken), the server finds the
 * tokens (findMentions), keeps those naming a member of the room's workspace — rewritten with the
 * member's real name, so a token cannot show one name and notify another person — and turns every
 * other token into plain text (rewriteMentions). The browser renders a kept token as a name chip,
 * never as a link.
 *
 * Also here: where in a draft the composer's autocomplete is (activeMentionQuery) and what picking a
 * member does to the draft (insertMention). Pure functions; no imports beyond zod's world.
 */

/** The scheme of a mention token's target: never a link, only a chip. */
export const MENTION_SCHEME = "mention:";
/** Longest display name a token carries (longer names are cut). */
export const MENTION_NAME_MAX = 80;
/** Distinct people one message can mention; tokens beyond are left as plain text. */
export const MAX_MENTIONS_PER_MESSAGE = 50;

/** A user id as Argus and better-auth write them: letters, digits, `_` and `-`. */
const ID = "[A-Za-z0-9_-]{1,64}";
/** A display name: no brackets, backslashes or line breaks (they would end or bend the token). */
const NAME = `[^\\[\\]\\\\\\r\\n]{1,${MENTION_NAME_MAX}}`;
const TOKEN = new RegExp(`@\\[(${NAME})\\]\\(${MENTION_SCHEME}(${ID})\\)`, "g");
const ID_ONLY = new RegExp(`^${ID}$`);

export interface MentionToken {
  /** Offsets in the text: text.slice(start, end) is the token as written. */
  start: number;
  end: number;
  userId: string;
  name: string;
}

/** Every canonical token in the text, in order. */
export function findMentions(text: string): MentionToken[] {
  const found: MentionToken[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const name = m[1]!.trim();
    if (!name) continue;
    found.push({ start: m.index, end: m.index + m[0].length, userId: m[2]!, name });
  }
  return found;
}

/** The distinct user ids the text mentions, in order of first mention. */
export function mentionedUserIds(text: string): string[] {
  return [...new Set(findMentions(text).map((m) => m.userId))];
}

/** A name as a token can carry it: brackets, backslashes and control characters out, spaces collapsed. */
export function mentionName(name: string): string {
  const clean = name
    .replace(/[[\]\\\u0000-\u001f\u007f]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const cut = [...clean].slice(0, MENTION_NAME_MAX).join("").trim();
  return cut || "member";
}

/** The canonical token for a user. */
export function mentionToken(user: { id: string; name: string }): string {
  if (!ID_ONLY.test(user.id)) throw new Error(`Not a user id a mention can carry: ${JSON.stringify(user.id)}`);
  return `@[${mentionName(user.name)}](${MENTION_SCHEME}${user.id})`;
}

/** The text with every token as `@Name` (notification excerpts, plain-text views). */
export function mentionsAsPlainText(text: string): string {
  return replaceTokens(text, (m) => `@${m.name}`);
}

/**
 * The text with each token of a known member rebuilt with their real name and every other token —
 * a stranger, an unknown id, the (MAX_MENTIONS_PER_MESSAGE + 1)th person — as plain `@Name`; and the
 * members mentioned, in order. `members` maps user id → current name.
 */
export function rewriteMentions(
  text: string,
  members: ReadonlyMap<string, string>,
): { text: string; userIds: string[] } {
  const kept: string[] = [];
  const out = replaceTokens(text, (m) => {
    const name = members.get(m.userId);
    if (name === undefined) return `@${m.name}`;
    if (!kept.includes(m.userId)) {
      if (kept.length >= MAX_MENTIONS_PER_MESSAGE) return `@${m.name}`;
      kept.push(m.userId);
    }
    return mentionToken({ id: m.userId, name });
  });
  return { text: out, userIds: kept };
}

function replaceTokens(text: string, replace: (m: MentionToken) => string): string {
  let out = "";
  let at = 0;
  for (const m of findMentions(text)) {
    out += text.slice(at, m.start) + replace(m);
    at = m.end;
  }
  return out + text.slice(at);
}

/** Letters, digits, spaces and the punctuation of names that may follow the `@` of a query. */
const QUERY = /^[\p{L}\p{M}\p{N} .'_-]{0,40}$/u;

/**
 * The `@…` the caret is in, if the composer should offer members: an `@` at the start or after a
 * space or an opening bracket (so `me@host` is no mention), then up to 40 name characters, no line
 * break, up to the caret. `start` is the offset of the `@`.
 */
export function activeMentionQuery(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, Math.max(0, Math.min(caret, text.length)));
  const at = before.lastIndexOf("@");
  if (at < 0) return null;
  const prev = at === 0 ? "" : before[at - 1]!;
  if (prev && !/[\s([{"'>]/.test(prev)) return null;
  const query = before.slice(at + 1);
  if (!QUERY.test(query) || query.startsWith(" ")) return null;
  return { start: at, query };
}

/** Whether a member's name fits what was typed after the `@`: any word of it starts with it, or the whole name does. */
export function mentionMatches(name: string, query: string): boolean {
  const q = query.trim().toLocaleLowerCase();
  if (!q) return true;
  const n = name.toLocaleLowerCase();
  return n.startsWith(q) || n.split(/\s+/).some((w) => w.startsWith(q));
}

/** The draft with the `@query` from `start` to `caret` replaced by the member's token and a space; and where the caret goes. */
export function insertMention(
  text: string,
  start: number,
  caret: number,
  user: { id: string; name: string },
): { text: string; caret: number } {
  return replaceQuery(text, start, caret, mentionToken(user));
}

/** How the team chat calls Argus (server/shared/ask.ts): plain text, not a member's token. */
export const ARGUS_MENTION = "@argus";

/**
 * Whether the composer offers `@argus` for what was typed after the `@`: in a room where asking is
 * possible (a project's or a review's, for a member), when "argus" starts with it.
 */
export function offersArgus(query: string, canAsk: boolean): boolean {
  return canAsk && mentionMatches("argus", query);
}

/** The draft with the `@query` replaced by `@argus` and a space; and where the caret goes. */
export function insertArgus(text: string, start: number, caret: number): { text: string; caret: number } {
  return replaceQuery(text, start, caret, ARGUS_MENTION);
}

function replaceQuery(text: string, start: number, caret: number, insert: string): { text: string; caret: number } {
  const token = `${insert} `;
  const after = text.slice(caret).replace(/^ /, "");
  return { text: text.slice(0, start) + token + after, caret: start + token.length };
}
