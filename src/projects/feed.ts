/**
 * The home page's feed (docs/design.md "Home: what did my agents do?"): per project of the
 * organization, its agents' work over the last FEED_DAYS days — tasks prepared (runs), the last one
 * (when, by whom, with which tool), the talents whose latest verdict is a fail (with its evidence),
 * findings on rules that block a commit (per rule), the talents installed — and what needs a person:
 * failing verdicts, required talents missing (not installed and enabled, or left out of tasks), a key
 * that expires within KEY_WARN_DAYS. Each project's feed is kept while its own clock stands (feedOf).
 */
import type { Catalog } from "../catalog/catalog";
import type { Database } from "../db/client";
import { keptGet, keptRead } from "../db/versionMemo";
import { keptEach } from "../lib/kept";
import { blockingRules } from "../policy/hookRules";
import { listInstalled } from "../selection/service";
import type { Project } from "./service";
import { POSTGRES, SQLITE, type SqlDialect } from "../db/sqlDialect";

export const FEED_DAYS = 7;
export const KEY_WARN_DAYS = 14;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Failing talents and blocking rules a card lists, at most (the counts say the rest). */
export const FEED_LISTED = 5;

export interface FeedVerdict {
  talentId: string;
  evidence: string[];
  missing: string[];
  at: number;
}

export interface ProjectFeed {
  project: Project;
  /** When it was read: the card's "expires in N days" counts from it, so its kept HTML says what a render would. */
  readAt: number;
  /** Tasks prepared in the window. */
  runs: number;
  lastRun: { at: number; who: string; client: string | null } | null;
  /** Talents whose latest verdict in the window is a fail, newest first. */
  failing: FeedVerdict[];
  /** Findings in the window on rules that block a commit in the project now, most first. */
  blocking: { talent: string; rule: string; findings: number }[];
  talents: { installed: number; enabled: number };
  /** Required by the organization's policy but not installed and enabled here. */
  requiredMissing: string[];
  /** Required talents a task of the window did not designate: how many tasks left each out. */
  requiredNotDesignated: { talentId: string; tasks: number }[];
  /** Keys (not revoked) that expire within KEY_WARN_DAYS. */
  expiringKeys: { name: string; expiresAt: number }[];
}

/** Whether a project's card says something needs a person. */
export const needsYou = (f: ProjectFeed): boolean =>
  f.failing.length > 0 || f.requiredMissing.length > 0 || f.requiredNotDesignated.length > 0 || f.expiringKeys.length > 0;

const RUNS_SQL = "SELECT COALESCE(SUM(resolutions), 0) AS n FROM resolution_hours WHERE project_id = ? AND hour >= ?";
const LAST_RUN_SQL = `SELECT r.created_at AS at, r.author_type AS type, COALESCE(t.author_name, k.name) AS name, t.client AS client, u.email AS email
FROM resolutions r
LEFT JOIN trace_events t ON t.resolution_id = r.id AND t.kind = 'prepare_task'
LEFT JOIN api_keys k ON r.author_type = 'key' AND k.id = r.author_id
LEFT JOIN oauth_tokens o ON r.author_type = 'token' AND o.id = r.author_id
LEFT JOIN users u ON u.id = CASE r.author_type WHEN 'token' THEN o.user_id WHEN 'user' THEN r.author_id END
WHERE r.project_id = ? ORDER BY r.created_at DESC, r.id DESC LIMIT 1`;
const VERDICTS_SQL = `SELECT rr.talent_id AS talent, rr.verdict, rr.evidence, rr.missing, r.created_at AS at
FROM reports r JOIN report_results rr ON rr.report_id = r.id
WHERE r.project_id = ? AND r.created_at >= ? ORDER BY r.created_at DESC, r.id DESC`;
const FINDINGS_SQL = `SELECT talent_id AS talent, rule_id AS rule, SUM(findings) AS n FROM rule_finding_days
WHERE project_id = ? AND day >= ? GROUP BY talent_id, rule_id HAVING SUM(findings) > 0`;
const KEYS_SQL = `SELECT name, expires_at AS expiresAt FROM api_keys
WHERE project_id = ? AND revoked_at IS NULL AND expires_at IS NOT NULL AND expires_at > ? AND expires_at <= ? ORDER BY expires_at`;
const POLICY_SQL = "SELECT required_talents AS required FROM org_policies WHERE organization_id = ?";
const LEFT_OUT_OF = (i: number) => `d.designation_id = r.designation_id AND d.talent_id = ?${i + 3}`;
/** Per required talent (the `?` after the window), the tasks of the window that did not designate it. */
const LEFT_OUT_SQL = (n: number, d: SqlDialect) => `SELECT ${Array.from(
  { length: n },
  (_, i) => `${d.countWhere(`NOT EXISTS (SELECT 1 FROM designation_items d WHERE ${LEFT_OUT_OF(i)})`)} AS t${i}`,
).join(", ")}
FROM resolutions r WHERE r.project_id = ?1 AND r.created_at >= ?2`;

type VerdictRow = { talent: string; verdict: string; evidence: string; missing: string; at: number };

/** The latest verdict per talent in the window, newest first: those that are a fail. */
function failingOf(rows: VerdictRow[]): FeedVerdict[] {
  const seen = new Set<string>();
  const out: FeedVerdict[] = [];
  for (const r of rows) {
    if (seen.has(r.talent)) continue;
    seen.add(r.talent);
    if (r.verdict === "fail")
      out.push({ talentId: r.talent, evidence: JSON.parse(r.evidence), missing: JSON.parse(r.missing), at: Number(r.at) });
  }
  return out;
}

/** One project's feed, read fresh (feedOf keeps it). */
async function readFeed(database: Database, catalog: Catalog | null, project: Project, hour: number, now: number): Promise<ProjectFeed> {
  const from = (hour - FEED_DAYS * 24) * HOUR;
  const fromDay = Math.floor(from / DAY);
  const [runs, last, verdicts, findings, blocking, installed, keys, policy] = await Promise.all([
    database.get<{ n: number }>(RUNS_SQL, [project.id, hour - FEED_DAYS * 24]),
    database.get<{ at: number; type: string; name: string | null; client: string | null; email: string | null }>(LAST_RUN_SQL, [
      project.id,
    ]),
    database.all<VerdictRow>(VERDICTS_SQL, [project.id, from]),
    database.all<{ talent: string; rule: string; n: number }>(FINDINGS_SQL, [project.id, fromDay]),
    catalog ? blockingRules(database, catalog, project.organizationId, project.id) : new Set<string>(), // no catalog loaded yet: none
    listInstalled(database, project.id),
    database.all<{ name: string; expiresAt: number }>(KEYS_SQL, [project.id, hour * HOUR, now + KEY_WARN_DAYS * DAY]),
    keptGet<{ required: string }>(database, POLICY_SQL, [project.organizationId]),
  ]);
  const required = policy ? (JSON.parse(policy.required) as string[]) : [];
  const enabled = new Set(installed.filter((r) => r.enabled).map((r) => r.talentId));
  let requiredNotDesignated: ProjectFeed["requiredNotDesignated"] = [];
  if (required.length > 0) {
    const row = await database.get<Record<string, number | null>>(
      LEFT_OUT_SQL(required.length, database.dialect === "sqlite" ? SQLITE : POSTGRES),
      [project.id, from, ...required],
    );
    requiredNotDesignated = required.map((talentId, i) => ({ talentId, tasks: Number(row?.[`t${i}`] ?? 0) })).filter((r) => r.tasks > 0);
  }
  return {
    project,
    readAt: now,
    runs: Number(runs?.n ?? 0),
    lastRun: last
      ? { at: Number(last.at), who: last.email ?? last.name ?? (last.type === "key" ? "a key" : "someone"), client: last.client }
      : null,
    failing: failingOf(verdicts),
    blocking: findings
      .filter((f) => blocking.has(`${f.talent} ${f.rule}`))
      .map((f) => ({ talent: f.talent, rule: f.rule, findings: Number(f.n) }))
      .sort((a, b) => b.findings - a.findings || (a.rule < b.rule ? -1 : 1)),
    talents: { installed: installed.length, enabled: enabled.size },
    requiredMissing: required.filter((id) => !enabled.has(id)),
    requiredNotDesignated,
    expiringKeys: keys.filter((k) => Number(k.expiresAt) > now).map((k) => ({ name: k.name, expiresAt: Number(k.expiresAt) })),
  };
}

/** A project's events of the current and the previous hour (kept hourly counts): it moves with any call traced in the project. */
const CLOCK_SQL = "SELECT COALESCE(SUM(events), 0) AS n FROM trace_hours WHERE project_id = ? AND hour >= ?";

/**
 * Each project's feed with the clock it was read at. The read in flight is what is kept (in a box), so the views that arrive
 * while it runs share it rather than each reading the same again.
 */
const feeds = keptEach<Database, string, { clock: string; box: { feed: Promise<ProjectFeed> } }>("Home feed of a project", {
  clock: "generation",
  limit: 2_000,
  per: "database",
});

/**
 * A project's feed, read again only when its own clock moves: the configuration epoch (keys, selections, the policy, hook rules,
 * the project), the hour (the window, a key's expiry), and the count of the project's traced calls of the last two hours. Every
 * write the feed reads is a traced call (a prepared task, a report, a findings report), and the page settles the journal first,
 * so a commit elsewhere in the database costs this project one read of a few kept counts, not its eight reads (docs/performance.md
 * "Home feed and Activity"). Without clocks (a libSQL server) it is read every time.
 */
export async function feedOf(database: Database, catalog: Catalog | null, project: Project, now = Date.now()): Promise<ProjectFeed> {
  const hour = Math.floor(now / HOUR);
  const epoch = database.configEpoch();
  if (epoch === null) return readFeed(database, catalog, project, hour, now);
  const recent = await keptRead(database, CLOCK_SQL, [project.id, hour - 1], () =>
    database.get<{ n: number }>(CLOCK_SQL, [project.id, hour - 1]),
  );
  const clock = `${epoch} ${hour} ${recent?.n ?? 0}`;
  const kept = feeds.of(database);
  const hit = kept.get(project.id);
  if (hit && hit.clock === clock) return hit.box.feed;
  const box = { feed: readFeed(database, catalog, project, hour, now) };
  kept.set(project.id, { clock, box });
  // a read that failed is not kept: the next view reads again
  box.feed.catch(() => kept.get(project.id)?.box === box && kept.delete(project.id));
  return box.feed;
}

/** The organization's projects' feeds: those that need a person first, then by their last run, newest first. */
export async function homeFeed(database: Database, catalog: Catalog | null, projects: readonly Project[]): Promise<ProjectFeed[]> {
  const feeds = await Promise.all(projects.map((p) => feedOf(database, catalog, p)));
  const rank = (f: ProjectFeed) => (needsYou(f) ? 0 : 1);
  return feeds
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f) - rank(b.f) || (b.f.lastRun?.at ?? 0) - (a.f.lastRun?.at ?? 0) || a.i - b.i)
    .map(({ f }) => f);
}

/** The group of the home page's kept read (organizationFeeds). */
const HOME_READ = "projects/feed.ts organizationFeeds";

/**
 * homeFeed of an organization's projects, kept for the data version and the hour: a view with no commit since the last one
 * (by anyone: every commit moves the data version) takes the feeds as they were instead of asking each project's clock
 * again; after a commit each project's own clock decides (feedOf). The read in flight is shared; a failed one is not kept.
 */
export async function organizationFeeds(
  database: Database,
  catalog: Catalog | null,
  organizationId: string,
  projects: readonly Project[],
): Promise<ProjectFeed[]> {
  const hour = Math.floor(Date.now() / HOUR);
  const box = await keptRead(database, HOME_READ, [organizationId, hour], async () => {
    const kept = { projects, feeds: homeFeed(database, catalog, projects), failed: false };
    kept.feeds.catch(() => void (kept.failed = true));
    return kept;
  });
  return box.failed || box.projects !== projects ? homeFeed(database, catalog, projects) : box.feeds;
}
