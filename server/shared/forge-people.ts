/**
 * People on a forge who are not Argus users — the author of an `@argus` question on a pull request,
 * a reviewer who replied to or reacted on an Argus comment — stand in rows that name a user by an id
 * of their own: `github:<login>` / `gitlab:<username>`. Views show them as "<login> (GitHub)" where a
 * user's name would be.
 */
const FORGE_PERSON = /^(github|gitlab):([\w.-]{1,100})$/;
const FORGE_LABEL = { github: "GitHub", gitlab: "GitLab" } as const;

export function forgePersonId(forge: "github" | "gitlab", login: string): string {
  return `${forge}:${login}`;
}

/** "<login> (GitHub)" for a forge person's id; null for any other id (an Argus user's). */
export function forgePersonName(id: string): string | null {
  const m = FORGE_PERSON.exec(id);
  return m ? `${m[2]} (${FORGE_LABEL[m[1] as keyof typeof FORGE_LABEL]})` : null;
}
