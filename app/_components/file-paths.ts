/** Paths of a snapshot's files, for the browser and the page's server loader alike (no "use client"). */

/** The file a snapshot opens on when none is asked for: the top-most README, else the first file. */
export function defaultFile(paths: readonly string[]): string | undefined {
  const readmes = paths.filter((p) => /(^|\/)readme(\.[a-z]+)?$/i.test(p));
  readmes.sort((a, b) => a.split("/").length - b.split("/").length || a.length - b.length);
  return readmes[0] ?? paths[0];
}
