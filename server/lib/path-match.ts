/**
 * One matcher for lists of paths people write (a review's `paths` scope, a repository's `.argus.yaml`
 * ignore list): each entry is a file, a folder (its whole subtree) or a glob; `./` and trailing
 * slashes are ignored.
 */
import picomatch from "picomatch";

const norm = (p: string) => p.replace(/\\/g, "/").replace(/^\.\//, "").replace(/\/+$/, "");

export function matcherFor(entries: string[]): (file: string) => boolean {
  const tests = entries.map((raw) => {
    const entry = norm(raw.trim());
    if (picomatch.scan(entry).isGlob) return picomatch(entry, { dot: true });
    return (file: string) => file === entry || file.startsWith(`${entry}/`);
  });
  return (file) => tests.some((t) => t(file));
}
