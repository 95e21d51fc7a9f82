/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), written from the
 * paper's rules: `connections`, `connected`, `connecting` → `connect`. It is the stemmer of the IR
 * literature's standard BM25 runs, so the bench's baseline and Argus's own features conflate the
 * same word forms. Input is one lower-case word; words of one or two letters, and words with
 * anything but a–z, are returned unchanged (identifiers' digits, other scripts).
 */

const isVowelAt = (w: string, i: number): boolean => {
  const c = w[i]!;
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return true;
  // `y` is a vowel after a consonant (`happy`), a consonant at the start or after a vowel (`toy`).
  return c === "y" && i > 0 && !isVowelAt(w, i - 1);
};

/** m in [C](VC)^m[V]: the number of vowel→consonant transitions of `stem`. */
function measure(stem: string): number {
  let m = 0;
  let prevVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const v = isVowelAt(stem, i);
    if (!v && prevVowel) m++;
    prevVowel = v;
  }
  return m;
}

const hasVowel = (stem: string): boolean => {
  for (let i = 0; i < stem.length; i++) if (isVowelAt(stem, i)) return true;
  return false;
};

/** *d: ends with a double consonant. */
const endsDoubleConsonant = (w: string): boolean =>
  w.length >= 2 && w[w.length - 1] === w[w.length - 2] && !isVowelAt(w, w.length - 1);

/** *o: ends consonant–vowel–consonant, the last not w, x or y (`hop`, not `snow`). */
const endsCvc = (w: string): boolean => {
  const n = w.length;
  if (n < 3) return false;
  if (isVowelAt(w, n - 1) || !isVowelAt(w, n - 2) || isVowelAt(w, n - 3)) return false;
  const last = w[n - 1]!;
  return last !== "w" && last !== "x" && last !== "y";
};

type Rule = readonly [suffix: string, replacement: string];

/** The longest listed suffix of `w` (only that one is tried); when the stem before it has measure
 * > `minMeasure`, the suffix is replaced. */
function applyRules(w: string, rules: readonly Rule[], minMeasure: number): string {
  let best: Rule | null = null;
  for (const r of rules) if (w.endsWith(r[0]) && (!best || r[0].length > best[0].length)) best = r;
  if (!best) return w;
  const stem = w.slice(0, w.length - best[0].length);
  return measure(stem) > minMeasure ? stem + best[1] : w;
}

const STEP2: readonly Rule[] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
  ["logi", "log"],
];

const STEP3: readonly Rule[] = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];

const STEP4 = [
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
];

function step1ab(w: string): string {
  // 1a: plurals.
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.slice(0, -2);
  else if (w.endsWith("ss")) {
    /* unchanged */
  } else if (w.endsWith("s")) w = w.slice(0, -1);
  // 1b: past tense and gerunds.
  if (w.endsWith("eed")) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
    return w;
  }
  let cut: string | null = null;
  if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) cut = w.slice(0, -2);
  else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) cut = w.slice(0, -3);
  if (cut === null) return w;
  w = cut;
  if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) return `${w}e`;
  if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) return w.slice(0, -1);
  if (measure(w) === 1 && endsCvc(w)) return `${w}e`;
  return w;
}

function step4(w: string): string {
  let best: string | null = null;
  for (const s of STEP4) if (w.endsWith(s) && (!best || s.length > best.length)) best = s;
  if (!best) return w;
  const stem = w.slice(0, w.length - best.length);
  if (measure(stem) <= 1) return w;
  if (best === "ion" && !/[st]$/.test(stem)) return w;
  return stem;
}

function step5(w: string): string {
  if (w.endsWith("e")) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  if (w.endsWith("ll") && measure(w) > 1) w = w.slice(0, -1);
  return w;
}

const WORD = /^[a-z]+$/;

export function porterStem(word: string): string {
  if (word.length <= 2 || !WORD.test(word)) return word;
  return stemRules(word);
}

/**
 * The same rules on any token, lower-cased first, digits taken as consonants (`1980s` → `1980`), as
 * NLTK's Porter does for ROUGE's tokens (the pipelines' evaluation server, qa-metrics.ts).
 */
export function porterStemToken(token: string): string {
  const w = token.toLowerCase();
  return w.length <= 2 ? w : stemRules(w);
}

function stemRules(word: string): string {
  let w = step1ab(word);
  // 1c: a final y after a vowel-bearing stem becomes i (`happy` → `happi`).
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  w = applyRules(w, STEP2, 0);
  w = applyRules(w, STEP3, 0);
  w = step4(w);
  return step5(w);
}
