/**
 * Rule effectiveness over a window, for a project or the organization (docs/api.md "Rule
 * effectiveness"): per talent, how often it was served, audited (its playbook fetched) and given a
 * verdict — from the kept per-day counts of talent_days (migration 0012) — and per rule, the
 * detector findings the talentd client reported (rule_finding_days), split by whether the rule's
 * talent was served to the task that produced the change and by the reporting client. The
 * lists of the Rules view: rules that fail most often after being served (their findings on
 * changes whose task was served them) and talents judged fail most often (verdicts are per
 * talent), talents served but never audited, and rules never served in the window. Read a day
 * of kept rows at a time; settled days are kept (journal/dayMemo.ts).
 */
import type { Database } from "../db/client";
import type { Catalog } from "../catalog/catalog";
import { keptAll } from "../db/versionMemo";
import { keptByIdentity } from "../lib/kept";
import { DAY_MS, foldWindow, keptAnswer, type PeriodFold } from "../journal/dayMemo";
import { clientName } from "../journal/clients";
import { windowView, type Window } from "./summaries";

/** Rows listed in each of the three lists of the Rules view. */
export const RULES_LISTED = 20;

/** Which projects: one, or every project of an organization. */
export type RulesScope = { projectId: string } | { organizationId: string };

type TalentRow = {
  talent_id: string;
  expertise_id: string | null;
  served: number;
  audited: number;
  pass: number;
  fail: number;
  not_applicable: number;
};
type FindingRow = { talent_id: string; rule_id: string; client: string; served: number; findings: number; reports: number };

const where = (s: RulesScope) =>
  "projectId" in s
    ? { sql: "project_id = ?", arg: s.projectId }
    : { sql: "project_id IN (SELECT id FROM projects WHERE organization_id = ?)", arg: s.organizationId };

/** One day of the talents' kept counts (talent_days, migration 0012), by talent. */
const TALENTS_SQL = (w: string) => `SELECT talent_id, max(expertise_id) AS expertise_id, sum(designated) AS served,
  sum(audited) AS audited, sum(pass) AS pass, sum(fail) AS fail, sum(not_applicable) AS not_applicable
FROM talent_days WHERE ${w} AND day = ? GROUP BY talent_id`;

/** One day of the reported findings by talent, rule, client and served (rule_finding_days: project, day first). */
const FINDINGS_SQL = (w: string) => `SELECT talent_id, rule_id, client, served, sum(findings) AS findings, sum(reports) AS reports
FROM rule_finding_days WHERE ${w} AND day = ? GROUP BY talent_id, rule_id, client, served`;

/** One day of the talents served per preparing client, and audited (talent_client_days, migration 0020). */
const CLIENTS_SQL = (w: string) => `SELECT talent_id, client, sum(served) AS served, sum(audited) AS audited
FROM talent_client_days WHERE ${w} AND day = ? GROUP BY talent_id, client`;

/** The enabled talents of the selection(s): a talent installed and never served is "never served". */
const INSTALLED_SQL = (w: string) => `SELECT DISTINCT talent_id, kind FROM installed_talents WHERE ${w} AND enabled = 1`;

type ClientRow = { talent_id: string; client: string; served: number; audited: number };
type Day = { talents: TalentRow[]; findings: FindingRow[]; clients: ClientRow[] };
type Sum = { talents: Map<string, TalentRow>; findings: Map<string, FindingRow>; clients: Map<string, ClientRow> };

/** Days added up: talents by id, findings by talent, rule, client and served. */
const RULES_FOLD: PeriodFold<Day, Sum> = {
  init: () => ({ talents: new Map(), findings: new Map(), clients: new Map() }),
  add(acc, day) {
    for (const t of day.talents) {
      const have = acc.talents.get(t.talent_id);
      if (!have) acc.talents.set(t.talent_id, { ...t });
      else {
        if (t.expertise_id && (!have.expertise_id || t.expertise_id > have.expertise_id)) have.expertise_id = t.expertise_id;
        for (const k of ["served", "audited", "pass", "fail", "not_applicable"] as const) have[k] = Number(have[k]) + Number(t[k]);
      }
    }
    for (const c of day.clients) {
      const key = `${c.talent_id}\u0000${c.client}`;
      const have = acc.clients.get(key);
      if (!have) acc.clients.set(key, { ...c });
      else {
        have.served = Number(have.served) + Number(c.served);
        have.audited = Number(have.audited) + Number(c.audited);
      }
    }
    for (const f of day.findings) {
      const key = `${f.talent_id}\u0000${f.rule_id}\u0000${f.client}\u0000${f.served}`;
      const have = acc.findings.get(key);
      if (!have) acc.findings.set(key, { ...f });
      else {
        have.findings = Number(have.findings) + Number(f.findings);
        have.reports = Number(have.reports) + Number(f.reports);
      }
    }
  },
  copy: (acc) => ({
    talents: new Map([...acc.talents].map(([k, v]) => [k, { ...v }])),
    findings: new Map([...acc.findings].map(([k, v]) => [k, { ...v }])),
    clients: new Map([...acc.clients].map(([k, v]) => [k, { ...v }])),
  }),
};

export interface RuleFindings {
  served: number;
  notServed: number;
  total: number;
}

export interface RuleRow {
  talentId: string;
  ruleId: string;
  title: string | null;
  severity: string | null;
  href: string;
  /** The talent's: a rule is served, audited and judged with its talent. */
  served: number;
  audited: number;
  failVerdicts: number;
  findings: RuleFindings;
  reports: number;
  byClient: { client: string | null; name: string; served: number; notServed: number }[];
}

/** Where a talent is read: the catalog's talent sheet, or the organization's expertise. */
export function talentHref(talentId: string, expertiseId: string | null): string {
  if (talentId.startsWith("@")) return expertiseId ? `/org/expertises/${encodeURIComponent(expertiseId)}` : "/org/expertises";
  return `/catalog/${encodeURIComponent(talentId)}`;
}

const byFailures = (a: RuleRow, b: RuleRow) =>
  b.findings.served - a.findings.served ||
  b.failVerdicts - a.failVerdicts ||
  (a.talentId < b.talentId ? -1 : a.talentId > b.talentId ? 1 : a.ruleId < b.ruleId ? -1 : 1);

/** Answers by the kept sum they were built from (and the selections and catalog). */
const answers = keptByIdentity<object, { deps: unknown[]; out: ReturnType<typeof build> }>("Rule effectiveness answer");

/**
 * The effectiveness answer of a scope over a window: the window's days folded from the kept
 * per-day rows (journal/dayMemo.ts foldWindow: past days kept until a late audit or report touches
 * them, today read again after a commit), the answer rebuilt only when the sum, the selections or
 * the catalog changed.
 */
export async function ruleEffect(database: Database, catalog: Catalog, scope: RulesScope, w: Window) {
  const { sql, arg } = where(scope);
  const talentsSql = TALENTS_SQL(sql);
  const findingsSql = FINDINGS_SQL(sql);
  const clientsSql = CLIENTS_SQL(sql);
  const sum = await foldWindow(
    database,
    `rules|${"projectId" in scope ? "p" : "o"}|${arg}`,
    w.fromDay,
    w.toDay,
    async (from) => {
      const day = Math.floor(from / DAY_MS);
      const talents = await database.all<TalentRow>(talentsSql, [arg, day]);
      const findings = await database.all<FindingRow>(findingsSql, [arg, day]);
      const clients = await database.all<ClientRow>(clientsSql, [arg, day]);
      return { talents, findings, clients };
    },
    RULES_FOLD,
    // whole days up to today, and today as one piece: each a day of kept rows
    { limit: w.toDay * DAY_MS },
  );
  const installed = await keptAll<{ talent_id: string; kind: string }>(database, INSTALLED_SQL(sql), [arg]);
  const kept = await keptAnswer(answers, sum, [installed, catalog], () =>
    build(catalog, [...sum.talents.values()], [...sum.findings.values()], [...sum.clients.values()], installed),
  );
  return { window: windowView(w), ...kept };
}

function talentEntry(t: TalentRow | undefined, talentId: string) {
  return {
    talentId,
    href: talentHref(talentId, t?.expertise_id ?? null),
    served: Number(t?.served ?? 0),
    audited: Number(t?.audited ?? 0),
    verdicts: { pass: Number(t?.pass ?? 0), fail: Number(t?.fail ?? 0), not_applicable: Number(t?.not_applicable ?? 0) },
    findings: { served: 0, notServed: 0 },
    rules: 0,
    /** Served and audited by the development tool that prepared the resolutions. */
    byClient: [] as { client: string | null; name: string; served: number; audited: number }[],
  };
}

/** The rows of each rule: the catalog's rules of every talent in play, and every rule reported. */
function build(
  catalog: Catalog,
  talentRows: TalentRow[],
  findingRows: FindingRow[],
  clientRows: ClientRow[],
  installed: { talent_id: string; kind: string }[],
) {
  const byTalent = new Map(talentRows.map((t) => [t.talent_id, t]));
  const ids = new Set([...byTalent.keys(), ...installed.map((i) => i.talent_id), ...findingRows.map((f) => f.talent_id)]);
  const talents = new Map([...ids].map((id) => [id, talentEntry(byTalent.get(id), id)]));
  const rules = new Map<string, RuleRow>();
  const rule = (talentId: string, ruleId: string, title: string | null, severity: string | null): RuleRow => {
    const key = `${talentId}\u0000${ruleId}`;
    let r = rules.get(key);
    if (!r) {
      const t = talents.get(talentId)!;
      r = {
        talentId,
        ruleId,
        title,
        severity,
        href: t.href,
        served: t.served,
        audited: t.audited,
        failVerdicts: t.verdicts.fail,
        findings: { served: 0, notServed: 0, total: 0 },
        reports: 0,
        byClient: [],
      };
      rules.set(key, r);
      t.rules++;
    }
    return r;
  };
  for (const id of ids) for (const r of catalog.get(id)?.rules ?? []) rule(id, r.id, r.title, r.severity);
  for (const c of clientRows) {
    const t = talents.get(c.talent_id) ?? talents.set(c.talent_id, talentEntry(undefined, c.talent_id)).get(c.talent_id)!;
    const client = c.client === "" ? null : c.client;
    t.byClient.push({ client, name: clientName(client), served: Number(c.served), audited: Number(c.audited) });
  }
  for (const t of talents.values()) t.byClient.sort((a, b) => b.served - a.served || (a.name < b.name ? -1 : 1));
  for (const f of findingRows) {
    const r = rule(f.talent_id, f.rule_id, null, null);
    const n = Number(f.findings);
    const served = Number(f.served) === 1;
    r.findings[served ? "served" : "notServed"] += n;
    r.findings.total += n;
    r.reports += Number(f.reports);
    talents.get(f.talent_id)!.findings[served ? "served" : "notServed"] += n;
    const client = f.client === "" ? null : f.client;
    let c = r.byClient.find((x) => x.client === client);
    if (!c) r.byClient.push((c = { client, name: clientName(client), served: 0, notServed: 0 }));
    c[served ? "served" : "notServed"] += n;
  }
  const all = [...rules.values()].sort(byFailures);
  const talentList = [...talents.values()].sort((a, b) => b.served - a.served || (a.talentId < b.talentId ? -1 : 1));
  const totals = { served: 0, audited: 0, verdicts: { pass: 0, fail: 0, not_applicable: 0 }, findings: { served: 0, notServed: 0 } };
  for (const t of talentList) {
    totals.served += t.served;
    totals.audited += t.audited;
    for (const v of ["pass", "fail", "not_applicable"] as const) totals.verdicts[v] += t.verdicts[v];
    totals.findings.served += t.findings.served;
    totals.findings.notServed += t.findings.notServed;
  }
  return {
    totals,
    failingAfterServed: all.filter((r) => r.findings.served > 0).slice(0, RULES_LISTED),
    // verdicts are given per talent (an expertise, a reviewable public talent), not per rule
    failingTalents: talentList
      .filter((t) => t.verdicts.fail > 0)
      .sort((a, b) => b.verdicts.fail - a.verdicts.fail || (a.talentId < b.talentId ? -1 : 1))
      .slice(0, RULES_LISTED),
    servedNeverAudited: talentList
      .filter((t) => t.served > 0 && t.audited === 0)
      .sort((a, b) => b.served - a.served || (a.talentId < b.talentId ? -1 : 1))
      .slice(0, RULES_LISTED),
    neverServed: all.filter((r) => r.served === 0).slice(0, RULES_LISTED),
    talents: talentList,
    rules: all,
  };
}

export type RuleEffect = Awaited<ReturnType<typeof ruleEffect>>;

const CSV_COLUMNS = [
  "talent_id",
  "rule_id",
  "title",
  "severity",
  "served",
  "audited",
  "fail_verdicts",
  "findings_served",
  "findings_not_served",
  "findings_total",
  "reports",
] as const;

/** A CSV field: quoted when it holds a comma, a quote or a line break; a leading =, +, - or @ is neutralised for spreadsheets. */
function field(v: string | number | null): string {
  if (v === null) return "";
  let s = String(v);
  if (typeof v === "string" && /^[=+\-@]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The rules of an answer as CSV (one row per rule, the talent's counts on each). */
export function rulesCsv(d: RuleEffect): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const r of d.rules) {
    lines.push(
      [
        r.talentId,
        r.ruleId,
        r.title,
        r.severity,
        r.served,
        r.audited,
        r.failVerdicts,
        r.findings.served,
        r.findings.notServed,
        r.findings.total,
        r.reports,
      ]
        .map(field)
        .join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}
