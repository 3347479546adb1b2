/**
 * The text the content check matches injection phrases in (docs/design.md "What the content check
 * refuses, and how fast"): each code point mapped through Unicode's compatibility decomposition
 * (NFKD: fullwidth, mathematical and circled letters, ligatures), its combining marks dropped,
 * lower-cased, Cyrillic and Greek letters that look like Latin ones folded to them (the table
 * below), curly apostrophes made straight, invisible characters dropped, and runs of white space
 * made one space. Each character of the result remembers the index of the code point it came from,
 * so a finding names the column in the text as written.
 */

/** Look-alikes of Latin letters, looked up after lower-casing. */
const LOOK_ALIKES: Record<string, string> = {
  // Cyrillic
  а: "a",
  е: "e",
  һ: "h",
  і: "i",
  ј: "j",
  ӏ: "l",
  о: "o",
  р: "p",
  ԛ: "q",
  с: "c",
  ѕ: "s",
  у: "y",
  ԝ: "w",
  х: "x",
  ԁ: "d",
  ѵ: "v",
  // Greek
  α: "a",
  β: "b",
  ε: "e",
  η: "n",
  ι: "i",
  κ: "k",
  μ: "u",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  γ: "y",
  ω: "w",
  ϲ: "c",
  ϳ: "j",
  // Latin without a dot, and apostrophes
  ı: "i",
  ȷ: "j",
  ɡ: "g",
  "\u2019": "'",
  "\u2018": "'",
  "\u02bc": "'",
};

/** Capitals that look like Latin ones though their lower case does not (Cyrillic В, Н, М, Т, К; Greek Η, Μ, Ν, Β, Ζ, Χ). */
const CAPITALS: Record<string, string> = {
  В: "b",
  Н: "h",
  М: "m",
  Т: "t",
  К: "k",
  Η: "h",
  Μ: "m",
  Ν: "n",
  Β: "b",
  Ζ: "z",
  Χ: "x",
};

/** Dropped: combining marks, and what is invisible (the content check refuses those on their own). */
const DROPPED = /[\p{Mn}\p{Me}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\ufff9-\ufffb]/u;
const SPACE = /\s/u;

/** A text folded for phrase matching, and where each of its characters came from in the original. */
export interface Folded {
  text: string;
  /** The original index of `text[k]`; for `k === text.length`, the original's length. */
  origin(k: number): number;
}

/** The characters one code point folds to ("" when dropped). */
function foldOne(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : ch;
  const capital = CAPITALS[ch];
  if (capital) return capital;
  let out = "";
  for (const part of ch.normalize("NFKD")) {
    if (DROPPED.test(part)) continue;
    const lower = part.toLowerCase();
    for (const c of lower) out += LOOK_ALIKES[c] ?? c;
  }
  return out;
}

/** Tab, line tabulation, form feed, carriage return, space: the ASCII white space. */
const asciiSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13);

/** The original index of each folded character of an ASCII line (white space collapsed, none leading or trailing). */
function asciiOrigins(line: string): number[] {
  const from: number[] = [];
  let space = true;
  for (let i = 0; i < line.length; i++) {
    if (asciiSpace(line.charCodeAt(i))) {
      if (!space) from.push(i);
      space = true;
    } else {
      from.push(i);
      space = false;
    }
  }
  if (space && from.length > 0) from.pop();
  from.push(line.length);
  return from;
}

/** Where folded characters came from, worked out on first use (only a finding asks). */
function lazyOrigin(make: () => number[]): (k: number) => number {
  let from: number[] | null = null;
  return (k) => {
    from ??= make();
    return from[k]!;
  };
}

const NOT_ASCII = /[^\x00-\x7f]/;

/** The folded form of one line (no newline in it). An ASCII line is lower-cased and its white space collapsed in one go. */
export function foldForPhrases(line: string): Folded {
  if (!NOT_ASCII.test(line)) {
    const text = line.toLowerCase().replace(/\s+/g, " ").trim();
    return { text, origin: text.length === line.length ? (k) => k : lazyOrigin(() => asciiOrigins(line)) };
  }
  const parts: string[] = [];
  const from: number[] = [];
  let space = true; // at the start, or right after a space: a further one is dropped
  for (let i = 0; i < line.length; ) {
    const code = line.charCodeAt(i);
    if (code < 0x80) {
      if (!asciiSpace(code)) {
        parts.push(code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : line[i]!);
        from.push(i);
        space = false;
      } else if (!space) {
        parts.push(" ");
        from.push(i);
        space = true;
      }
      i++;
      continue;
    }
    const width = code >= 0xd800 && code <= 0xdbff && i + 1 < line.length ? 2 : 1;
    for (const c of foldOne(line.slice(i, i + width))) {
      if (SPACE.test(c)) {
        if (space) continue;
        space = true;
        parts.push(" ");
      } else {
        space = false;
        parts.push(c);
      }
      from.push(i);
    }
    i += width;
  }
  if (space && parts.length > 0) {
    parts.pop();
    from.pop();
  }
  from.push(line.length);
  return { text: parts.join(""), origin: (k) => from[k]! };
}
