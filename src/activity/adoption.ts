/**
 * Talent adoption (docs/api.md "Activity, insights and adoption", owner/admin): every talent and expertise
 * of the organization with the projects that installed it, its designations, audit rate, the
 * share of its resolutions with a verdict and their outcomes, and the versions served against
 * the latest. The definitions are usage.ts's.
 */
import { keptByIdentity } from "../lib/kept";
import type { Catalog } from "../catalog/catalog";
import type { Database } from "../db/client";
import { keptAll } from "../db/versionMemo";
import { iso } from "../lib/time";
import { isExpertiseRef } from "../selection/sources";
import { VERDICTS, type Verdict } from "../resolution/verdicts";
import { DAY_MS, noVerdicts, type VerdictCounts } from "./daily";
import { foldWindow, keptAnswer, type PeriodFold } from "../journal/dayMemo";
import { orgSelections, type OrgSelectionRow } from "./selections";
import { windowView, type Window } from "./summaries";
import { AUDITED, emptyTally, rate, tallyVerdicts, verdictsSql, type VerdictTally } from "./usage";
import { bothDialects } from "../db/sqlDialect";

/** One talent or expertise across the organization (talent-adoption, and the expertises of insights). */
export interface AdoptionEntry {
  id: string;
  kind: "talent" | "expertise";
  title: string | null;
  expertiseId: string | null;
  status: string | null;
  projects: { installed: number; active: number };
  designations: number;
  audited: number;
  auditRate: number | null;
  withVerdict: number;
  verdictRate: number | null;
  verdicts: VerdictCounts;
  outcomes: VerdictCounts;
  latestVersion: string | null;
  versions: { version: string; latest: boolean; designations: number; lastServedAt: string }[];
  lastUsedAt: string | null;
}

const EXPERTISES_SQL = "SELECT id, slug, status, published_version, deleted_at FROM expertises WHERE organization_id = ?";

type ServedRow = {
  talent_id: string;
  kind: "talent" | "expertise";
  version: string;
  expertise_id: string | null;
  designations: number;
  audited: number;
  last: number;
};
/** What the window's resolutions served, by talent and version, and their verdicts by talent. */
type Served = { served: Map<string, ServedRow>; verdicts: Map<string, VerdictTally> };

const ADOPTION_FOLD: PeriodFold<{ rows: ServedRow[]; verdictRows: Parameters<typeof tallyVerdicts>[0] }, Served> = {
  init: () => ({ served: new Map(), verdicts: new Map() }),
  add(acc, { rows, verdictRows }) {
    for (const r of rows) {
      const key = `${r.talent_id}\n${r.version}`;
      const s = acc.served.get(key);
      if (!s) acc.served.set(key, { ...r, designations: Number(r.designations), audited: Number(r.audited), last: Number(r.last) });
      else {
        if (r.expertise_id && (!s.expertise_id || r.expertise_id > s.expertise_id)) s.expertise_id = r.expertise_id;
        s.designations += Number(r.designations);
        s.audited += Number(r.audited);
        s.last = Math.max(s.last, Number(r.last));
      }
    }
    tallyVerdicts(verdictRows, acc.verdicts);
  },
  copy: (acc) => ({
    served: new Map([...acc.served].map(([k, v]) => [k, { ...v }])),
    verdicts: new Map(
      [...acc.verdicts].map(([k, v]) => [k, { verdicts: { ...v.verdicts }, outcomes: { ...v.outcomes }, withVerdict: v.withVerdict }]),
    ),
  }),
};

/** The organization's resolutions made in [?2, ?3). */
const WHERE = "r.project_id IN (SELECT id FROM projects WHERE organization_id = ?1) AND r.created_at >= ?2 AND r.created_at < ?3";
/** Their talents by talent and version (the kind: SQLite takes any row's, PostgreSQL wants it aggregated; it is the same in each). */
const KIND = { sqlite: "i.kind", postgres: "min(i.kind) AS kind" };
const SERVED = bothDialects(
  (d) => `WITH win AS MATERIALIZED (SELECT r.id AS id, r.created_at AS created_at, ${d.flag(AUDITED)} AS audited
           FROM resolutions r WHERE ${WHERE})
         SELECT i.talent_id, ${KIND[d.name]}, i.version, max(i.expertise_id) AS expertise_id, count(*) AS designations,
           sum(w.audited) AS audited, max(w.created_at) AS last
         FROM win w JOIN resolution_items i ON i.resolution_id = w.id GROUP BY i.talent_id, i.version`,
);
const VERDICTS_OF = bothDialects((d) => verdictsSql("resolutions r", WHERE, "", d));

/**
 * Every talent and expertise the organization installed or was served in the window, and every
 * published expertise of it, with projects installed/active, designations, audit rate, verdict
 * share and outcomes, and versions served against the latest. Most designated first.
 */
export async function talentAdoption(
  database: Database,
  catalog: Catalog,
  org: { id: string; slug: string },
  w: Window,
): Promise<AdoptionEntry[]> {
  // the organization's resolutions a period at a time: the sum of the settled periods kept until an audit or a report touches one
  // (dayMemo.ts)
  const sum = await foldWindow(
    database,
    `adoption|${org.id}`,
    w.fromDay,
    w.toDay,
    async (from, to) => {
      // a whole day from the counts kept per day (talent_days): a few rows per project, however many resolutions
      if (from % DAY_MS === 0 && to - from === DAY_MS) return keptDay(database, org.id, from / DAY_MS);
      const rows = await database.all<ServedRow>(SERVED[database.dialect], [org.id, from, to]);
      const verdictRows =
        rows.length === 0
          ? []
          : await database.all<Parameters<typeof tallyVerdicts>[0][number]>(VERDICTS_OF[database.dialect], [org.id, from, to]);
      return { rows, verdictRows };
    },
    ADOPTION_FOLD,
    // days are whole up to today, and today is one piece: each a day of talent_days (past days kept until touched, today per commit)
    { limit: w.toDay * DAY_MS },
  );
  const selections = await orgSelections(database, org.id);
  const expertises = await keptAll<ExpertiseRow>(database, EXPERTISES_SQL, [org.id]);
  // the same sum, selections, expertises and catalog: the same answer (the same object: the page keeps its HTML by it)
  return keptAnswer(answers, sum, [selections, expertises, catalog, org.slug], () =>
    adoptionAnswer(sum, selections.rows, expertises, catalog, org.slug),
  );
}

/** The organization's talents served on one day, by talent and version, with their verdicts: from talent_days (migration 0012). */
export const ORG_TALENT_DAY_SQL = `SELECT talent_id, version, max(expertise_id) AS expertise_id, sum(designated) AS designations,
  sum(audited) AS audited,
  max(last_at) AS last, sum(pass) AS pass, sum(fail) AS fail, sum(not_applicable) AS not_applicable, sum(latest_pass) AS latest_pass,
  sum(latest_fail) AS latest_fail, sum(latest_not_applicable) AS latest_not_applicable
FROM talent_days WHERE project_id IN (SELECT id FROM projects WHERE organization_id = ?) AND day = ? GROUP BY talent_id, version`;

/** One day of the organization's adoption from the kept counts, in the shape of the raw read. */
async function keptDay(database: Database, organizationId: string, day: number) {
  const kept = await database.all<Omit<ServedRow, "kind"> & Record<Verdict | `latest_${Verdict}`, number>>(ORG_TALENT_DAY_SQL, [
    organizationId,
    day,
  ]);
  const rows: ServedRow[] = kept.map((r) => ({
    talent_id: r.talent_id,
    kind: isExpertiseRef(r.talent_id) ? "expertise" : "talent",
    version: r.version,
    expertise_id: r.expertise_id,
    designations: Number(r.designations),
    audited: Number(r.audited),
    last: Number(r.last),
  }));
  const verdictRows = kept.flatMap((r) =>
    VERDICTS.map((verdict) => ({ talent_id: r.talent_id, verdict, total: Number(r[verdict]), latest: Number(r[`latest_${verdict}`]) })),
  );
  return { rows, verdictRows };
}

type ExpertiseRow = { id: string; slug: string; status: string; published_version: number; deleted_at: number | null };
const answers = keptByIdentity<object, { deps: unknown[]; out: AdoptionEntry[] }>("Dashboard: adoption");

function adoptionAnswer(
  { served, verdicts }: Served,
  selections: readonly OrgSelectionRow[],
  expertises: readonly ExpertiseRow[],
  catalog: Catalog,
  orgSlug: string,
): AdoptionEntry[] {
  const installed = new Map<string, { talent_id: string; kind: "talent" | "expertise"; installed: number; active: number }>();
  for (const r of selections) {
    const k = `${r.kind}|${r.talent_id}`;
    const c = installed.get(k) ?? installed.set(k, { talent_id: r.talent_id, kind: r.kind, installed: 0, active: 0 }).get(k)!;
    c.installed++;
    if (r.enabled) c.active++;
  }
  const byRef = new Map(expertises.map((e) => [`@${orgSlug}/${e.slug}`, e]));

  const entries = new Map<string, AdoptionEntry & { lastMs: number }>();
  const entry = (id: string, kind: "talent" | "expertise") => {
    let e = entries.get(id);
    if (!e) {
      const x = kind === "expertise" ? byRef.get(id) : undefined;
      const latest =
        kind === "expertise" ? (x && x.published_version > 0 ? String(x.published_version) : null) : (catalog.get(id)?.version ?? null);
      e = {
        id,
        kind,
        title: kind === "talent" ? (catalog.get(id)?.title ?? null) : null,
        expertiseId: x?.id ?? null,
        status: x ? (x.deleted_at !== null ? "deleted" : x.status) : null,
        projects: { installed: 0, active: 0 },
        designations: 0,
        audited: 0,
        auditRate: null,
        withVerdict: 0,
        verdictRate: null,
        verdicts: noVerdicts(),
        outcomes: noVerdicts(),
        latestVersion: latest,
        versions: [],
        lastUsedAt: null,
        lastMs: 0,
      };
      entries.set(id, e);
    }
    return e;
  };
  for (const x of expertises) if (x.published_version > 0 && x.deleted_at === null) entry(`@${orgSlug}/${x.slug}`, "expertise");
  for (const row of installed.values()) {
    const e = entry(row.talent_id, row.kind);
    e.projects.installed += Number(row.installed);
    e.projects.active += Number(row.active);
  }
  const versions = new Map<string, Map<string, { designations: number; last: number }>>();
  for (const row of served.values()) {
    const e = entry(row.talent_id, row.kind);
    if (row.expertise_id && !e.expertiseId) e.expertiseId = row.expertise_id;
    e.designations += Number(row.designations);
    e.audited += Number(row.audited);
    e.lastMs = Math.max(e.lastMs, Number(row.last));
    const of = versions.get(e.id) ?? versions.set(e.id, new Map()).get(e.id)!;
    const v = of.get(row.version) ?? { designations: 0, last: 0 };
    v.designations += Number(row.designations);
    v.last = Math.max(v.last, Number(row.last));
    of.set(row.version, v);
  }
  for (const [id, of] of versions) {
    const e = entries.get(id)!;
    for (const [version, v] of of)
      e.versions.push({ version, latest: version === e.latestVersion, designations: v.designations, lastServedAt: iso(v.last) });
  }
  for (const e of entries.values()) {
    const v = verdicts.get(e.id) ?? emptyTally();
    e.verdicts = { ...v.verdicts }; // copies: the tally may be the kept sum's
    e.outcomes = { ...v.outcomes };
    e.withVerdict = v.withVerdict;
    e.auditRate = rate(e.audited, e.designations);
    e.verdictRate = rate(e.withVerdict, e.designations);
    e.lastUsedAt = e.lastMs ? iso(e.lastMs) : null;
    e.versions.sort((a, b) => (a.lastServedAt < b.lastServedAt ? 1 : -1));
  }
  return [...entries.values()].sort((a, b) => b.designations - a.designations || (a.id < b.id ? -1 : 1)).map(({ lastMs: _, ...e }) => e);
}

/** The adoption answer. */
export async function adoptionView(database: Database, catalog: Catalog, org: { id: string; slug: string }, projects: number, w: Window) {
  const talents = await talentAdoption(database, catalog, org, w);
  return { organizationId: org.id, ...windowView(w), projects, talents };
}
