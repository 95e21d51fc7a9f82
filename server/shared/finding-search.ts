/**
 * Finding a finding by what one remembers of it — words of its title, its file, its line — among a
 * review's findings, for the "duplicate of" picker: the first few matches, not all of thousands.
 */
export interface Searchable {
  fingerprint: string;
  title: string;
  file: string;
  startLine: number;
}

/** How a finding reads in the picker: `title (file:line)`. */
export function findingLabel(f: Pick<Searchable, "title" | "file" | "startLine">): string {
  return `${f.title} (${f.file}:${f.startLine})`;
}

/**
 * The first `max` findings (in the given order, `self` left out) whose label holds every word of
 * `query`, case-insensitively; `more` when others match too.
 */
export function matchingFindings<F extends Searchable>(
  findings: readonly F[],
  self: string,
  query: string,
  max = 20,
): { shown: F[]; more: boolean } {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const shown: F[] = [];
  for (const f of findings) {
    if (f.fingerprint === self) continue;
    const text = findingLabel(f).toLowerCase();
    if (!words.every((w) => text.includes(w))) continue;
    if (shown.length === max) return { shown, more: true };
    shown.push(f);
  }
  return { shown, more: false };
}
