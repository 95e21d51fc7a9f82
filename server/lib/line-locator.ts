/**
 * 1-based lines of character offsets (chunks and rule matches carry offsets; people read lines): the
 * line starts are found once, then each offset is a binary search. A newline belongs to the line it ends.
 */
export function lineLocator(text: string): (offset: number) => number {
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}
