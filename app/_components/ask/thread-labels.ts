/**
 * The labels of a room's thread chips: a thread's title, and — when another thread has the same
 * title (the same question asked twice) — the time it was asked, so no two chips read the same.
 */
export function threadLabels(
  threads: readonly { id: string; title: string; createdAt: string }[],
): Map<string, string> {
  const count = new Map<string, number>();
  for (const t of threads) count.set(t.title, (count.get(t.title) ?? 0) + 1);
  const labels = new Map<string, string>();
  for (const t of threads) {
    if ((count.get(t.title) ?? 0) < 2) labels.set(t.id, t.title);
    else {
      const at = new Date(t.createdAt);
      const time = at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
      labels.set(t.id, `${t.title} · ${time}`);
    }
  }
  return labels;
}
