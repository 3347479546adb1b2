/**
 * What the context budget cut, for an organization's insights (insights.ts): per project, over the
 * window, how many prepare-tasks listed designated talents without serving them (their trace event's
 * `detail.notServed`, written by the prepare-task route), which talents were cut most often, and the
 * budget in force today (the project's own, or the default).
 */
import type { Database } from "../db/client";
import { keptByIdentity } from "../lib/kept";
import { foldWindow, keptAnswer, type PeriodFold } from "../journal/dayMemo";
import { DEFAULT_CONTEXT_BUDGET } from "../resolution/budget";
import { HOUR_MS } from "./daily";
import type { Window } from "./summaries";
import { bothDialects } from "../db/sqlDialect";

/** Talents listed per project (the most often cut first); the JSON answer and the page show the same. */
export const CUT_TALENTS_LISTED = 10;

type ProjectRef = { id: string; name: string; contextBudget?: number | null };

/**
 * A period's successful prepare-tasks of the organization's projects, grouped by project and by the list
 * the budget cut (null: nothing cut). `created_at / 3600000` walks trace_events_summary_idx an hour at a
 * time to its `prepare_task` entries; only those rows are read for their detail.
 */
export const CUTS = bothDialects(
  (d) => `SELECT project_id, ${d.jsonField("detail", ["notServed"])} AS cut, count(*) AS n FROM trace_events
WHERE project_id IN (SELECT id FROM projects WHERE organization_id = ?) AND created_at / 3600000 >= ? AND created_at / 3600000 < ?
  AND kind = 'prepare_task' AND status < 400 GROUP BY project_id, cut`,
);

type CutRow = { project_id: string; cut: string | null; n: number };
type ProjectCuts = { prepared: number; cut: number; talents: Map<string, number> };
type CutSum = Map<string, ProjectCuts>;

const CUTS_FOLD: PeriodFold<CutRow[], CutSum> = {
  init: () => new Map(),
  add(acc, rows) {
    for (const r of rows) {
      const n = Number(r.n);
      const p = acc.get(r.project_id) ?? acc.set(r.project_id, { prepared: 0, cut: 0, talents: new Map() }).get(r.project_id)!;
      p.prepared += n;
      const ids = cutIds(r.cut);
      if (ids.length === 0) continue;
      p.cut += n;
      for (const id of ids) p.talents.set(id, (p.talents.get(id) ?? 0) + n);
    }
  },
  copy: (acc) => new Map([...acc].map(([id, p]) => [id, { ...p, talents: new Map(p.talents) }])),
};

/** The talent ids of a recorded cut (a JSON array of ids), anything else as none. */
function cutIds(json: string | null): string[] {
  if (!json) return [];
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

const cutAnswers = keptByIdentity<object, { deps: unknown[]; out: ReturnType<typeof cutAnswer> }>("Dashboard: budget cuts");

/** The organization's prepare-tasks cut by their project's context budget over the window: each period folded once. */
export async function budgetCuts(database: Database, organizationId: string, projects: readonly ProjectRef[], w: Window) {
  const sum = await foldWindow(
    database,
    `cuts|${organizationId}`,
    w.fromDay,
    w.toDay,
    (from, to) => database.all<CutRow>(CUTS[database.dialect], [organizationId, from / HOUR_MS, to / HOUR_MS]),
    CUTS_FOLD,
  );
  return keptAnswer(cutAnswers, sum, [projects, w.fromDay, w.toDay], () => cutAnswer(sum, projects));
}

function cutAnswer(sum: CutSum, projects: readonly ProjectRef[]) {
  const out = [];
  let resolutions = 0;
  for (const p of projects) {
    const c = sum.get(p.id);
    if (!c || c.cut === 0) continue;
    resolutions += c.cut;
    out.push({
      projectId: p.id,
      projectName: p.name,
      budget: p.contextBudget ?? DEFAULT_CONTEXT_BUDGET,
      defaultBudget: p.contextBudget == null,
      prepared: c.prepared,
      cut: c.cut,
      talents: [...c.talents]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, CUT_TALENTS_LISTED)
        .map(([id, count]) => ({ id, count })),
    });
  }
  out.sort((a, b) => b.cut - a.cut || (a.projectName < b.projectName ? -1 : 1));
  return { resolutions, projects: out };
}
