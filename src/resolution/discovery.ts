/**
 * The discovery playbook (docs/api.md "The agent loop"): a procedure to pick talents for a codebase, the project's
 * selection as it is (marked), and a compact index of what could be added — relevant first, cut at a token budget
 * (DISCOVERY_BUDGET) with the count of what was left and where to read on. It activates nothing.
 */
import type { Catalog } from "../catalog/catalog";
import { estimateTokens, type Talent } from "../catalog/format";
import type { ServableExpertise } from "../expertises/servable";
import { validationFailed } from "../http/errors";
import { discoveryMore, discoveryProcedure, type Voice } from "./wording";
import { keptByIdentity } from "../lib/kept";
import type { InstalledRow } from "../selection/service";
import { isRelevanceWord, rankByRelevance, RELEVANCE_LIMITS, type Relevance } from "../selection/relevance";
import type { ServableItem } from "../selection/sources";

/** Most tokens (the service's estimate, ceil(characters / 4)) a discovery answer takes, whatever the catalog's size. */
export const DISCOVERY_BUDGET = 4_000;
/** Most characters of an index entry's one-line summary. */
const SUMMARY_MAX = 110;

/** One line of a summary: its first sentence, at most SUMMARY_MAX characters (cut at a word, with an ellipsis). */
export function oneLine(summary: string): string {
  const first = /^(.*?[.!?])(\s|$)/s.exec(summary)?.[1] ?? summary;
  const flat = first.replace(/\s+/g, " ").trim();
  if (flat.length <= SUMMARY_MAX) return flat;
  const cut = flat.slice(0, SUMMARY_MAX - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), SUMMARY_MAX / 2))}…`;
}

/**
 * The codebase's languages as a query gives them (`typescript,python`): lower-case words, at most as many as the
 * relevance settings hold; they replace the settings' languages when ranking. 400 validation_failed otherwise.
 */
export function readLanguages(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const words = [...new Set(raw.split(",").map((w) => w.trim().toLowerCase()))].filter(Boolean);
  const bad = words.filter((w) => !isRelevanceWord(w));
  if (bad.length > 0 || words.length > RELEVANCE_LIMITS.languages)
    throw validationFailed([
      {
        path: "languages",
        message: `must be at most ${RELEVANCE_LIMITS.languages} comma-separated language words (e.g. typescript,python)`,
      },
    ]);
  return words;
}

export interface DiscoveryInput {
  catalog: Catalog;
  rows: readonly InstalledRow[];
  /** The project's active items (installed, enabled, servable). */
  active: ReadonlyMap<string, ServableItem>;
  /** The organization's servable expertises: those not installed are candidates too. */
  expertises: readonly ServableExpertise[];
  relevance: Relevance;
  /** Index entries to skip (a previous answer's catalog.next). */
  offset: number;
  /** Who is told: the procedure and the pointer past the cut name its channel's calls. */
  voice: Voice;
}

type Entry = { id: string; kind?: "expertise"; summary: string; languages: string[]; roles: string[]; relevant: boolean };

/** A talent's index entry but `relevant`, and the characters the whole entry takes (with relevant false; true is one less). */
const entries = keptByIdentity<Talent, { fields: Omit<Entry, "relevant">; cost: number }>("A talent's discovery index entry");

/** The entry of a talent (the summary's line and the cost measured once per talent: they were most of an answer's CPU). */
function entryOf(t: Talent): { fields: Omit<Entry, "relevant">; cost: number } {
  let e = entries.get(t);
  if (!e) {
    const fields = {
      id: t.id,
      ...(t.id.startsWith("@") ? { kind: "expertise" as const } : {}),
      summary: oneLine(t.summary),
      languages: t.languages,
      roles: t.roles,
    };
    e = { fields, cost: JSON.stringify({ ...fields, relevant: false }).length };
    entries.set(t, e);
  }
  return e;
}

/** The selection, marked: active public talents, active expertises, and the installed but disabled ones. */
function selectionOf(rows: readonly InstalledRow[], active: ReadonlyMap<string, ServableItem>) {
  const items = [...active.values()];
  return {
    installed: rows.length,
    active: active.size,
    talents: items.filter((i) => i.kind === "talent").map((i) => i.id),
    expertises: items.filter((i) => i.kind === "expertise").map((i) => i.id),
    disabled: rows.filter((r) => !r.enabled).map((r) => r.talentId),
  };
}

/** The playbook, at most DISCOVERY_BUDGET tokens: the index holds what fits, from `offset`, relevant first. */
export function discoveryPlaybook(input: DiscoveryInput) {
  const installed = new Set(input.rows.map((r) => r.talentId));
  const candidates: Talent[] = [
    ...input.expertises.filter((e) => !installed.has(e.ref)).map((e) => e.talent),
    ...input.catalog.list.filter((t) => !installed.has(t.id)),
  ];
  // most relevant first: relevant ones by how many dimensions they match by name ("any language" is the weakest match)
  const strength = (x: { relevant: boolean; why: string[] }) => (x.relevant ? 1 + x.why.filter((w) => w !== "any language").length : 0);
  // by strength, most first, in rankByRelevance's order within one (buckets: a sort of 5,000 new objects was half the CPU)
  const buckets: ReturnType<typeof rankByRelevance<Talent>>[] = [];
  for (const x of rankByRelevance(candidates, (t) => t, input.relevance)) {
    const s = strength(x);
    while (buckets.length <= s) buckets.push([]);
    buckets[s]!.push(x);
  }
  const ranked = buckets.reverse().flat();
  const answer = {
    procedure: discoveryProcedure(input.voice),
    selection: selectionOf(input.rows, input.active),
    catalog: {
      digest: input.catalog.digest,
      total: ranked.length,
      offset: input.offset,
      talents: [] as Entry[],
      left: ranked.length,
      next: ranked.length as number | null,
    },
    more: discoveryMore(input.voice) as string | undefined,
    activatesNothing: true as const,
  };
  // the frame with the largest numbers it can hold, then entries while they fit
  let used = JSON.stringify(answer).length;
  const room = DISCOVERY_BUDGET * 4;
  for (const { item: t, relevant } of ranked.slice(input.offset)) {
    const { fields, cost: entryCost } = entryOf(t);
    // the entry and the comma before it; "true" is a character shorter than "false"
    const cost = entryCost + 1 - (relevant ? 1 : 0);
    if (used + cost > room) break;
    used += cost;
    answer.catalog.talents.push({ ...fields, relevant });
  }
  const end = Math.min(ranked.length, input.offset + answer.catalog.talents.length);
  answer.catalog.left = ranked.length - end;
  answer.catalog.next = answer.catalog.left > 0 ? end : null;
  if (answer.catalog.left === 0) answer.more = undefined;
  return answer;
}

/** The answer's size in tokens, as budgets count them (tests and the bench measure with it). */
export function discoveryTokens(answer: ReturnType<typeof discoveryPlaybook>): number {
  return estimateTokens(JSON.stringify(answer));
}
