/**
 * What a person reading a text cannot see (docs/design.md "What the content check refuses, and how
 * fast"): every Default_Ignorable_Code_Point (zero-width characters and joiners, variation
 * selectors, Hangul fillers, U+034F, U+061C, U+180E, tag characters, the musical formatting
 * characters), the bidi controls, the interlinear annotation characters U+FFF9–U+FFFB, the
 * Egyptian hieroglyph format controls, and the line and paragraph separators U+2028/U+2029. Two
 * uses are kept because an emoji needs them: a variation selector (U+FE0E, U+FE0F) right after a
 * pictographic character (or U+FE0F between a keycap base and U+20E3), and a zero-width joiner
 * between two pictographic characters of an emoji sequence.
 */

/** The candidates: one character class, so a scan is one pass over the text. */
const UNSEEN = /[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\u2028\u2029\ufff9-\ufffb\u{13430}-\u{1343f}]/gu;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const MODIFIER = /\p{Emoji_Modifier}/u;
const KEYCAP_BASE = /^[0-9#*]$/;
const NOT_ASCII = /[^\x00-\x7f]/;

/** One unseen code point: its UTF-16 index in the text, the code point and what it is. */
export interface Unseen {
  index: number;
  codePoint: number;
  what: string;
}

/** The code point that ends just before `index`, and where it starts; null at the start. */
function before(text: string, index: number): { cp: string; at: number } | null {
  if (index <= 0) return null;
  const low = text.charCodeAt(index - 1);
  const at = low >= 0xdc00 && low <= 0xdfff && index >= 2 && /[\ud800-\udbff]/.test(text[index - 2]!) ? index - 2 : index - 1;
  return { cp: text.slice(at, index), at };
}

const pictographic = (cp: string | undefined): boolean => cp !== undefined && PICTOGRAPHIC.test(cp);

/** Whether the code point at `index` (a variation selector or a joiner) belongs to an emoji sequence. */
function inEmoji(text: string, index: number, cp: number): boolean {
  const prev = before(text, index);
  if (cp === 0xfe0e || cp === 0xfe0f) {
    if (!prev) return false;
    if (pictographic(prev.cp)) return true;
    return cp === 0xfe0f && KEYCAP_BASE.test(prev.cp) && text.charCodeAt(index + 1) === 0x20e3;
  }
  if (cp !== 0x200d) return false;
  const next = text.codePointAt(index + 1);
  if (next === undefined || !pictographic(String.fromCodePoint(next))) return false;
  if (!prev) return false;
  if (pictographic(prev.cp)) return true;
  // a presentation selector or a skin tone between the pictograph and the joiner
  if (prev.cp === "\ufe0f" || MODIFIER.test(prev.cp)) return pictographic(before(text, prev.at)?.cp);
  return false;
}

/** What an unseen code point is, for the finding's message. */
function whatIs(cp: number): string {
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) return "a variation selector outside an emoji sequence";
  if (cp >= 0xe0000 && cp <= 0xe007f) return "a tag character";
  if (cp === 0x2028 || cp === 0x2029) return "a line or paragraph separator";
  if (cp === 0x115f || cp === 0x1160 || cp === 0x3164 || cp === 0xffa0) return "a Hangul filler";
  if (cp >= 0xfff9 && cp <= 0xfffb) return "an interlinear annotation character";
  if (cp >= 0x1d173 && cp <= 0x1d17a) return "a musical formatting character";
  if (cp === 0x061c || cp === 0x200e || cp === 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
    return "a bidi control";
  if ((cp >= 0x200b && cp <= 0x200d) || cp === 0x2060 || cp === 0xfeff || cp === 0x180e || cp === 0x034f)
    return "a zero-width character or joiner";
  if (cp === 0x00ad) return "a soft hyphen";
  return "an invisible formatting character";
}

/** The unseen code points of a text, in order (a BOM included: the caller decides about the file's first one). */
export function unseenIn(text: string): Unseen[] {
  const out: Unseen[] = [];
  if (!NOT_ASCII.test(text)) return out; // every candidate is outside ASCII
  for (const m of text.matchAll(UNSEEN)) {
    const cp = m[0].codePointAt(0)!;
    if ((cp === 0xfe0e || cp === 0xfe0f || cp === 0x200d) && inEmoji(text, m.index, cp)) continue;
    out.push({ index: m.index, codePoint: cp, what: whatIs(cp) });
  }
  return out;
}

/** Whether a text holds any unseen code point (emoji sequences aside). */
export const hasUnseen = (text: string): boolean => unseenIn(text).length > 0;
