/**
 * An organization's insights (docs/design.md "Insights and adoption"): failed calls, keys to review, projects at fault, resolutions never
 * audited or lacking a required talent, failing expertises, budget cuts, passes the hook contradicted; each with the ids a page links to.
 */
import type { Catalog } from "../catalog/catalog";
import type { Database } from "../db/client";
import { iso } from "../lib/time";
import { keptAll } from "../db/versionMemo";
import { keptByIdentity, keptEach } from "../lib/kept";
import { listServableExpertises } from "../expertises/servable";
import { diagnose } from "../resolution/doctor";
import { withItems } from "../selection/sources";
import { foldWindow, keptAnswer, type PeriodFold } from "../journal/dayMemo";
import { orgSelections, type OrgSelectionRow } from "./selections";
import { dateOf, DAY_MS } from "./daily";
import { windowView, type Window } from "./summaries";
import { talentAdoption, type AdoptionEntry } from "./adoption";
import { neverAudited } from "./neverAudited";
import { orgRequired, requiredNotDesignated } from "./requiredNotDesignated";
import { budgetCuts } from "./budgetCuts";
import { selfAudit } from "./selfAudit";
import { bothDialects } from "../db/sqlDialect";

/** Keys listed: expiring within KEY_EXPIRING_DAYS, unused for KEY_UNUSED_DAYS, never used once KEY_NEVER_USED_DAYS old. */
export const KEY_EXPIRING_DAYS = 14;
export const KEY_UNUSED_DAYS = 30;
export const KEY_NEVER_USED_DAYS = 7;
type ProjectRef = { id: string; name: string; contextBudget?: number | null };

/**
 * Failed calls (status ≥ 400) of an organization's projects in a period, by project, day, status, error code (in the event's detail,
 * by the trace hook) and kind: the partial index trace_events_failed_idx holds only failed calls (probed per project), never the rest.
 */
export const FAILED_CALLS_ORG = bothDialects(
  (d) => `SELECT project_id, created_at / 86400000 AS day, status, ${d.jsonField("detail", ["error"])} AS code, kind, count(*) AS n,
  max(created_at) AS last FROM trace_events WHERE project_id IN (SELECT id FROM projects WHERE organization_id = ?) AND status >= 400
  AND created_at >= ? AND created_at < ? GROUP BY project_id, day, status, code, kind`,
);

type FailedRow = { project_id: string; day: number; status: number; code: string | null; kind: string; n: number; last: number };

/** A period's failed calls folded by code and status, and by day and code label. */
interface FailedPeriod {
  codes: {
    code: string | null;
    status: number;
    count: number;
    last: number;
    byKind: Record<string, number>;
    projects: [string, number][];
  }[];
  days: [day: number, label: string, n: number][];
}

function foldFailed(rows: FailedRow[]): FailedPeriod {
  const codes = new Map<
    string,
    { code: string | null; status: number; count: number; last: number; byKind: Record<string, number>; projects: Map<string, number> }
  >();
  const days = new Map<string, [number, string, number]>();
  for (const r of rows) {
    const n = Number(r.n);
    const code = typeof r.code === "string" ? r.code : null;
    const key = `${code ?? ""}|${r.status}`;
    let c = codes.get(key);
    if (!c) codes.set(key, (c = { code, status: Number(r.status), count: 0, last: 0, byKind: {}, projects: new Map() }));
    c.count += n;
    c.last = Math.max(c.last, Number(r.last));
    c.byKind[r.kind] = (c.byKind[r.kind] ?? 0) + n;
    c.projects.set(r.project_id, (c.projects.get(r.project_id) ?? 0) + n);
    const label = code ?? String(r.status);
    const dk = `${r.day}|${label}`;
    const d = days.get(dk) ?? days.set(dk, [Number(r.day), label, 0]).get(dk)!;
    d[2] += n;
  }
  return { codes: [...codes.values()].map((c) => ({ ...c, projects: [...c.projects.entries()] })), days: [...days.values()] };
}

type FailedCode = {
  code: string | null;
  status: number;
  count: number;
  lastAt: number;
  byKind: Record<string, number>;
  projects: Map<string, number>;
};
/** Failed calls summed over periods: by code and status, and by day and code label. */
type FailedSum = { total: number; byCode: Map<string, FailedCode>; byDay: Map<number, { count: number; byCode: Record<string, number> }> };

const FAILED_FOLD: PeriodFold<FailedPeriod, FailedSum> = {
  init: () => ({ total: 0, byCode: new Map(), byDay: new Map() }),
  add(acc, period) {
    for (const f of period.codes) {
      const key = `${f.code ?? ""}|${f.status}`;
      let c = acc.byCode.get(key);
      if (!c) acc.byCode.set(key, (c = { code: f.code, status: f.status, count: 0, lastAt: 0, byKind: {}, projects: new Map() }));
      c.count += f.count;
      c.lastAt = Math.max(c.lastAt, f.last);
      for (const k in f.byKind) c.byKind[k] = (c.byKind[k] ?? 0) + f.byKind[k]!;
      for (const [id, n] of f.projects) c.projects.set(id, (c.projects.get(id) ?? 0) + n);
      acc.total += f.count;
    }
    for (const [d, label, n] of period.days) {
      const day = acc.byDay.get(d) ?? acc.byDay.set(d, { count: 0, byCode: {} }).get(d)!;
      day.count += n;
      day.byCode[label] = (day.byCode[label] ?? 0) + n;
    }
  },
  copy: (acc) => ({
    total: acc.total,
    byCode: new Map([...acc.byCode].map(([k, c]) => [k, { ...c, byKind: { ...c.byKind }, projects: new Map(c.projects) }])),
    byDay: new Map([...acc.byDay].map(([d, v]) => [d, { count: v.count, byCode: { ...v.byCode } }])),
  }),
};

/** Failed calls of the organization's projects by error code and day: each period folded once, settled sums kept (dayMemo.ts). */
export async function failedCalls(database: Database, organizationId: string, projects: readonly ProjectRef[], w: Window) {
  const sum = await foldWindow(
    database,
    `failed|${organizationId}`,
    w.fromDay,
    w.toDay,
    async (from, to) => foldFailed(await database.all<FailedRow>(FAILED_CALLS_ORG[database.dialect], [organizationId, from, to])),
    FAILED_FOLD,
  );
  return keptAnswer(failedAnswers, sum, [projects, w.fromDay, w.toDay], () => failedAnswer(sum, projects, w));
}

const failedAnswers = keptByIdentity<object, { deps: unknown[]; out: ReturnType<typeof failedAnswer> }>("Dashboard: failed calls");

function failedAnswer(sum: FailedSum, projects: readonly ProjectRef[], w: Window) {
  const names = new Map(projects.map((p) => [p.id, p.name]));
  const byDay = [];
  for (let d = w.fromDay; d <= w.toDay; d++) {
    const day = sum.byDay.get(d);
    byDay.push({ date: dateOf(d), count: day?.count ?? 0, byCode: { ...day?.byCode } });
  }
  return {
    total: sum.total,
    byCode: [...sum.byCode.values()]
      .sort((a, b) => b.count - a.count || a.status - b.status)
      .map((c) => ({
        code: c.code,
        status: c.status,
        count: c.count,
        lastAt: iso(c.lastAt),
        byKind: { ...c.byKind },
        projects: [...c.projects.entries()]
          .filter(([id]) => names.has(id))
          .sort((a, b) => b[1] - a[1])
          .map(([id, count]) => ({ projectId: id, projectName: names.get(id)!, count })),
      })),
    byDay,
  };
}

type KeyRow = {
  id: string;
  name: string;
  project_id: string;
  project_name: string;
  expires_at: number | null;
  last_used_at: number | null;
  created_at: number;
  automation: number;
  created_by: string;
  email: string | null;
};
const KEYS_SQL = `SELECT k.id, k.name, k.project_id, p.name AS project_name, k.expires_at, k.last_used_at, k.created_at,
  k.automation, k.created_by, u.email
     FROM api_keys k JOIN projects p ON p.id = k.project_id LEFT JOIN users u ON u.id = k.created_by
     WHERE p.organization_id = ? AND k.revoked_at IS NULL`;
/** The last answer per key rows (kept per data version), with the span of time over which no key's reason changes. */
const keyAnswers = keptByIdentity<object, { from: number; until: number; out: ReturnType<typeof reviewKeys>["out"] }>("Dashboard: keys");

/** Active keys of the organization that expired, expire soon, were never used, or not lately. */
export async function keysToReview(database: Database, organizationId: string, now: number) {
  const rows = await keptAll<KeyRow>(database, KEYS_SQL, [organizationId]);
  const hit = keyAnswers.get(rows);
  if (hit && now >= hit.from && now < hit.until) return hit.out;
  const { out, until } = reviewKeys(rows, now);
  keyAnswers.set(rows, { from: now, until, out });
  return out;
}

/** Each key's reason at `now`, and the next time one of them changes (a key expires, enters the 14 days, or passes 7 or 30 days unused). */
function reviewKeys(rows: readonly KeyRow[], now: number) {
  let until = Infinity;
  const next = (t: number) => {
    if (t > now && t < until) until = t;
  };
  const out = [];
  for (const k of rows) {
    const expiresAt = k.expires_at === null ? null : Number(k.expires_at);
    const lastUsedAt = k.last_used_at === null ? null : Number(k.last_used_at);
    if (expiresAt !== null) {
      next(expiresAt);
      next(expiresAt - KEY_EXPIRING_DAYS * DAY_MS);
    }
    if (lastUsedAt === null) next(Number(k.created_at) + KEY_NEVER_USED_DAYS * DAY_MS);
    else next(lastUsedAt + KEY_UNUSED_DAYS * DAY_MS);
    let reason: "expired" | "expiring" | "never_used" | "unused" | null = null;
    if (expiresAt !== null && expiresAt <= now) reason = "expired";
    else if (expiresAt !== null && expiresAt <= now + KEY_EXPIRING_DAYS * DAY_MS) reason = "expiring";
    else if (lastUsedAt === null && Number(k.created_at) <= now - KEY_NEVER_USED_DAYS * DAY_MS) reason = "never_used";
    else if (lastUsedAt !== null && lastUsedAt <= now - KEY_UNUSED_DAYS * DAY_MS) reason = "unused";
    if (!reason) continue;
    out.push({
      reason,
      keyId: k.id,
      name: k.name,
      projectId: k.project_id,
      projectName: k.project_name,
      automation: Boolean(k.automation),
      createdAt: iso(Number(k.created_at)),
      expiresAt: iso(expiresAt),
      lastUsedAt: iso(lastUsedAt),
      createdBy: { id: k.created_by, email: k.email },
    });
  }
  const order = { expired: 0, expiring: 1, never_used: 2, unused: 3 };
  return {
    out: out.sort((a, b) => order[a.reason] - order[b.reason] || (a.projectName < b.projectName ? -1 : 1) || (a.name < b.name ? -1 : 1)),
    until,
  };
}

/** The last judgement of each organization's projects, per catalog (a reloaded catalog judges afresh). */
const judged = keptEach<Catalog, string, { key: string; out: ProjectToFix[] }>("Projects to fix per organization", {
  clock: "identity",
  limit: 1_000,
  per: "catalog",
});
type ProjectToFix = { projectId: string; projectName: string; advice: string } & Pick<
  ReturnType<typeof diagnose>,
  "missingPrerequisites" | "conflicts" | "disabledDependencies" | "unservable" | "requiredByPolicy"
>;

/** Projects doctor finds at fault (missing prerequisites, conflicts, disabled dependencies, unservable talents, required talents of the
 * policy lacking): every project's selection at once (selections.ts), the servable expertises once, doctor's judgement in memory. */
export async function projectsToFix(
  database: Database,
  catalog: Catalog,
  organizationId: string,
  projects: readonly ProjectRef[],
): Promise<ProjectToFix[]> {
  const { fingerprint, rows } = await orgSelections(database, organizationId);
  const expertises = rows.some((r) => r.kind === "expertise") ? await listServableExpertises(database, organizationId, catalog) : [];
  // the same selections, servable expertises, projects and catalog: the same judgement
  const servable = expertises.map((e) => `${e.ref}@${e.version}`).join(",");
  const required = await orgRequired(database, organizationId);
  const key = `${fingerprint}|${servable}|${projects.map((p) => `${p.id}=${p.name}`).join(",")}|${required.join(",")}`;
  const hit = judged.of(catalog).get(organizationId);
  if (hit && hit.key === key) return hit.out;
  const byProject = new Map<string, OrgSelectionRow[]>();
  for (const r of rows) (byProject.get(r.project_id) ?? byProject.set(r.project_id, []).get(r.project_id)!).push(r);
  const out: ProjectToFix[] = [];
  for (const p of projects) {
    const selection = (byProject.get(p.id) ?? []).map((r) => ({
      talentId: r.talent_id,
      kind: r.kind,
      enabled: Boolean(r.enabled),
      installedBy: r.installed_by,
      installedAt: Number(r.installed_at),
      updatedAt: Number(r.updated_at),
    }));
    const d = diagnose(withItems(selection, expertises, catalog), catalog, { id: p.id, organizationId }, { admin: false, required });
    if (d.healthy) continue;
    out.push({
      projectId: p.id,
      projectName: p.name,
      missingPrerequisites: d.missingPrerequisites,
      conflicts: d.conflicts,
      disabledDependencies: d.disabledDependencies,
      unservable: d.unservable,
      requiredByPolicy: d.requiredByPolicy,
      advice: d.advice,
    });
  }
  out.sort((a, b) => (a.projectName < b.projectName ? -1 : a.projectName > b.projectName ? 1 : 0));
  judged.of(catalog).set(organizationId, { key, out });
  return out;
}

type Fail = {
  talent_id: string;
  report_id: string;
  resolution_id: string;
  project_id: string;
  created_at: number;
  evidence: string;
  missing: string;
  note: string | null;
};
const later = (a: Fail, b: Fail) =>
  Number(a.created_at) > Number(b.created_at) || (Number(a.created_at) === Number(b.created_at) && a.report_id > b.report_id);

/** The latest failing result per expertise, over periods. */
const FAILS_FOLD: PeriodFold<Fail[], Map<string, Fail>> = {
  init: () => new Map(),
  add(acc, fails) {
    for (const f of fails) {
      const l = acc.get(f.talent_id);
      if (!l || later(f, l)) acc.set(f.talent_id, f);
    }
  },
  copy: (acc) => new Map(acc),
};

/** Expertises with at least one fail verdict on a resolution of the window, with the latest failing report. */
export async function failingExpertises(
  database: Database,
  catalog: Catalog,
  org: { id: string; slug: string },
  projects: readonly ProjectRef[],
  w: Window,
) {
  const adoption = await talentAdoption(database, catalog, org, w);
  if (!adoption.some((e) => e.kind === "expertise" && e.verdicts.fail > 0)) return NO_FAILING;
  // the latest failing result per expertise, over the window's resolutions a period at a time
  const byTalent = await foldWindow(
    database,
    `fails|${org.id}`,
    w.fromDay,
    w.toDay,
    (from, to) =>
      database.all<Fail>(
        `SELECT talent_id, report_id, resolution_id, project_id, created_at, evidence, missing, note FROM (
           SELECT rr.talent_id, rep.id AS report_id, rep.resolution_id, rep.project_id, rep.created_at, rr.evidence, rr.missing, rr.note,
             row_number() OVER (PARTITION BY rr.talent_id ORDER BY rep.created_at DESC, rep.id DESC) AS k
           FROM resolutions r JOIN reports rep ON rep.resolution_id = r.id
           JOIN report_results rr ON rr.report_id = rep.id AND rr.kind = 'expertise' AND rr.verdict = 'fail'
           WHERE r.project_id IN (SELECT id FROM projects WHERE organization_id = ?) AND r.created_at >= ? AND r.created_at < ?
         ) AS latest WHERE k = 1`,
        [org.id, from, to],
      ),
    FAILS_FOLD,
  );
  return keptAnswer(failingAnswers, adoption, [byTalent, projects], () => failingAnswer(adoption, byTalent, projects));
}

/** No failing expertise: one object, so the page keeps what it drew for it. */
const NO_FAILING: ReturnType<typeof failingAnswer> = [];
const failingAnswers = keptByIdentity<object, { deps: unknown[]; out: ReturnType<typeof failingAnswer> }>("Dashboard: failing");

function failingAnswer(adoption: readonly AdoptionEntry[], byTalent: Map<string, Fail>, projects: readonly ProjectRef[]) {
  const names = new Map(projects.map((p) => [p.id, p.name]));
  return adoption
    .filter((e) => e.kind === "expertise" && e.verdicts.fail > 0)
    .sort((a, b) => b.verdicts.fail - a.verdicts.fail || (a.id < b.id ? -1 : 1))
    .map((e) => {
      const l = byTalent.get(e.id);
      return {
        expertiseId: e.expertiseId,
        ref: e.id,
        status: e.status,
        designations: e.designations,
        withVerdict: e.withVerdict,
        verdictRate: e.verdictRate,
        verdicts: e.verdicts,
        outcomes: e.outcomes,
        lastFail: l
          ? {
              at: iso(Number(l.created_at)),
              projectId: l.project_id,
              projectName: names.get(l.project_id) ?? null,
              resolutionId: l.resolution_id,
              reportId: l.report_id,
              evidence: JSON.parse(l.evidence) as string[],
              missing: JSON.parse(l.missing) as string[],
              note: l.note,
            }
          : null,
      };
    });
}

/** `GET /web/orgs/current/insights`. */
export async function insights(
  database: Database,
  catalog: Catalog,
  org: { id: string; slug: string },
  projects: readonly ProjectRef[],
  w: Window,
  now = Date.now(),
) {
  return {
    organizationId: org.id,
    ...windowView(w),
    failedCalls: await failedCalls(database, org.id, projects, w),
    keys: await keysToReview(database, org.id, now),
    projects: await projectsToFix(database, catalog, org.id, projects),
    neverAudited: await neverAudited(database, org.id, projects, w, now),
    requiredNotDesignated: await requiredNotDesignated(database, org.id, projects, w),
    expertises: await failingExpertises(database, catalog, org, projects, w),
    budgetCuts: await budgetCuts(database, org.id, projects, w),
    selfAudit: await selfAudit(database, org.id, projects, w),
  };
}
