/**
 * The text the content check matches injection phrases in (docs/design.md "What the content check
 * refuses, and how fast"): each code point mapped through Unicode's compatibility decomposition
 * (NFKD: fullwidth, mathematical and circled letters, ligatures), its combining marks dropped,
 * lower-cased, Cyrillic and Greek letters that look like Latin ones folded to them (the table
 * below), curly apostrophes made straight, invisible characters dropped, and runs of white space
 * made one space. Each character of the result remembers the index of the code point it came from,
 * so a finding names the column in the text as written.
 */

/** Look-alikes of Latin letters (after lower-casing, plus the capitals whose lower case looks like nothing Latin). */
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
const CAPITALS: Record<string, string> = { В: "b", Н: "h", М: "m", Т: "t", К: "k", Η: "h", Μ: "m", Ν: "n", Β: "b", Ζ: "z", Χ: "x" };

/** Dropped: combining marks, and what is invisible (the content check refuses those on their own). */
const DROPPED = /[\p{Mn}\p{Me}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\ufff9-\ufffb]/u;
const SPACE = /\s/u;

/** A text folded for phrase matching, and for each of its characters the index in the original it came from. */
export interface Folded {
  text: string;
  /** `from[k]`: the original index of `text[k]`; `from[text.length]` is the original's length. */
  from: number[];
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

/** The folded form of one line (no newline in it); ASCII takes a fast path, the rest goes through foldOne. */
export function foldForPhrases(line: string): Folded {
  const parts: string[] = [];
  const from: number[] = [];
  let space = true; // at the start, or right after a space: a further one is dropped
  for (let i = 0; i < line.length; ) {
    const code = line.charCodeAt(i);
    if (code < 0x80) {
      if (asciiSpace(code)) {
        if (!space) {
          parts.push(" ");
          from.push(i);
          space = true;
        }
      } else {
        parts.push(code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : line[i]!);
        from.push(i);
        space = false;
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
  return { text: parts.join(""), from };
}
