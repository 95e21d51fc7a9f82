/**
 * `path:line` and `path:line-line` in chat text: where they are, so the browser can link them to the
 * code viewer. A path is a file name with an extension, optionally under folders (`src/app.ts:12`,
 * `README.md:3-9`); it must start at a word boundary that is not part of a URL or an address
 * (`https://host.com:8080` and `me@host.io:22` are not references).
 */
export interface CodeRef {
  /** Offsets in the text: text.slice(start, end) is the reference as written. */
  start: number;
  end: number;
  path: string;
  line: number;
  /** The range's last line (≥ line), when a range was given. */
  endLine?: number;
}

const REF = /(?<![\w/:@.~-])((?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,10}):(\d{1,7})(?:-(\d{1,7}))?(?![\w/:-])/g;

export function findCodeRefs(text: string): CodeRef[] {
  const refs: CodeRef[] = [];
  for (const m of text.matchAll(REF)) {
    const line = Number(m[2]);
    const last = m[3] === undefined ? undefined : Number(m[3]);
    if (line < 1 || (last !== undefined && last < line)) continue;
    refs.push({
      start: m.index,
      end: m.index + m[0].length,
      path: m[1]!,
      line,
      ...(last !== undefined && last > line ? { endLine: last } : {}),
    });
  }
  return refs;
}
