/**
 * The insights' view of the organization's policy (docs/design.md "Organization policy"):
 * required talents are installed and active everywhere but served only when a task designates
 * them, so a lead sees, per resolution of the window (the newest first), the required talents
 * it did not serve. Judged against the policy as it is now.
 */
import type { Database } from "../db/client";
import { keptGet, keptRead } from "../db/versionMemo";
import { iso } from "../lib/time";
import type { Window } from "./summaries";
import { bothDialects } from "../db/sqlDialect";

/** Resolutions of the window read (the newest); those that lack a required talent are listed, at most LISTED. */
const READ = 500;
const LISTED = 50;

const POLICY_SQL = "SELECT required_talents AS required FROM org_policies WHERE organization_id = ?";

const RESOLUTIONS = bothDialects(
  (d) => `SELECT r.id, r.project_id, r.created_at,
  (SELECT ${d.stringAgg("d.talent_id", "' '")} FROM designation_items d WHERE d.designation_id = r.designation_id) AS served
FROM resolutions r WHERE r.project_id IN (SELECT id FROM projects WHERE organization_id = ?) AND r.created_at >= ?
ORDER BY r.created_at DESC, r.id DESC LIMIT ${READ}`,
);

type Row = { id: string; project_id: string; created_at: number; served: string | null };

/** The talents the organization's policy requires (none without a policy): the row kept per configuration epoch. */
export async function orgRequired(database: Database, organizationId: string): Promise<string[]> {
  const policy = await keptGet<{ required: string }>(database, POLICY_SQL, [organizationId]);
  return policy ? (JSON.parse(policy.required) as string[]) : [];
}

/** Per resolution of the window, the required talents it did not serve (none required: an empty answer). */
export async function requiredNotDesignated(
  database: Database,
  organizationId: string,
  projects: readonly { id: string; name: string }[],
  w: Window,
) {
  const required = await orgRequired(database, organizationId);
  if (required.length === 0) return { requiredTalents: required, resolutions: 0, lacking: 0, recent: [] };
  const rows = await keptRead(database, RESOLUTIONS[database.dialect], [organizationId, w.from], () =>
    database.all<Row>(RESOLUTIONS[database.dialect], [organizationId, w.from]),
  );
  const names = new Map(projects.map((p) => [p.id, p.name]));
  const lacking = rows.flatMap((r) => {
    const served = new Set((r.served ?? "").split(" "));
    const missing = required.filter((id) => !served.has(id));
    return missing.length > 0 ? [{ r, missing }] : [];
  });
  return {
    requiredTalents: required,
    resolutions: rows.length,
    lacking: lacking.length,
    recent: lacking.slice(0, LISTED).map(({ r, missing }) => ({
      resolutionId: r.id,
      projectId: r.project_id,
      projectName: names.get(r.project_id) ?? r.project_id,
      createdAt: iso(Number(r.created_at))!,
      requiredNotDesignated: missing,
    })),
  };
}
