/**
 * Which lines of an imported rule file read as rules (imports.ts): an instruction (its first word is
 * a verb in the imperative, or an adverb or negation rules open with: "Use …", "Never …") or a
 * statement of obligation ("Every migration must be reversible.": must, should, shall, never,
 * always, is required to, needs to, has to, is not allowed).
 */

/** Markdown emphasis removed, spaces collapsed; code spans kept. */
export function plain(text: string): string {
  return text
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|\W)[*_]([^*_\s][^*_]*?)[*_](?=\W|$)/g, "$1$2")
    .replace(/\s+/g, " ")
    .trim();
}

/** Words that open an instruction: verbs in the imperative, and the adverbs and negations rules start with. */
const IMPERATIVE_OPENERS = new Set(
  (
    "always never only do don't dont no avoid prefer use write keep run add make ensure follow put place name return throw handle " +
    "validate check test document import export call create define declare store log include exclude remove delete update wrap " +
    "split limit favor favour choose pick set pass let treat mark tag commit push open close read respect reuse apply implement " +
    "refactor extract separate group sort format lint build install pin bump configure enable disable require allow forbid reject " +
    "accept sanitize sanitise escape encode decode parse serialize catch await mock stub cover assert verify confirm review explain " +
    "describe comment annotate type prefix start stop begin cap batch cache memoize index query paginate migrate maintain preserve " +
    "match mirror align indent default guard protect secure encrypt hash sign rotate expire retry debounce throttle load fetch send " +
    "emit listen subscribe dispatch render inline extend override compose stick consider think ask tell give show hide move rename " +
    "copy replace convert cast narrow specify list organize organise structure colocate reference link cite note report raise fail " +
    "exit quote clean prune trim minimize reduce increase skip ignore omit drop leave lock target support measure profile deploy " +
    "release publish version squash rebase merge branch spell respond answer reply finish complete summarize summarise plan break " +
    "fix debug investigate look search find stay remain be get go see try watch wait isolate inject expose declare prefer instead " +
    "must should please destructure model design store persist return design mention flag warn lowercase uppercase capitalize"
  ).split(" "),
);

/** Whether an item's text reads as an instruction: its first word (after a `Label:` lead-in) opens one. */
export function isImperative(text: string): boolean {
  const t = plain(text).replace(/^\[[ xX]\]\s+/, "");
  const lead = /^[^:]{1,40}:\s+(.+)$/.exec(t);
  const candidates = lead ? [t, lead[1]!] : [t];
  return candidates.some((c) => {
    const word = /^[`"']?([A-Za-z][A-Za-z'’-]*)/.exec(c)?.[1];
    return word !== undefined && IMPERATIVE_OPENERS.has(word.toLowerCase().replace("’", "'"));
  });
}

/** The words of an obligation. */
const NORMATIVE =
  /\b(must|mustn't|should|shouldn't|shall|never|always|(is|are) (not )?(required|allowed|permitted) to|(needs?|has|have) to)\b/i;
/** Whether a sentence states an obligation ("Every migration must be reversible", "Tests should not hit the network"). */
export function isNormative(text: string): boolean {
  return NORMATIVE.test(plain(text));
}

/** Whether an item's text reads as a rule: an instruction or an obligation. */
export function readsAsRule(text: string): boolean {
  return isImperative(text) || isNormative(text);
}
