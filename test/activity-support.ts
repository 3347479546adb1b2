/** Helpers of the activity, insights and adoption tests: a project that runs the agent loop, seeded events, a published expertise. */
import { expect } from "bun:test";
import { orderedId } from "../src/lib/ids";
import { createKey, nextTurn, orgWithProject, talentMd, withKey, type TestEnv, type WebClient } from "./helpers";

const ALL = ["prepare_task", "validate", "record_validation", "deepen", "doctor", "catalog", "discover", "install"];

/** A project with two active talents, a key with every scope, and a caller sending `User-Agent: agent-a/1.0`. */
export async function loopProject(env: TestEnv, name?: string) {
  const o = await orgWithProject(env, name);
  await o.owner.post(`/web/projects/${o.project.id}/talents`, { talents: ["typescript-strict", "javascript-base"] });
  const created = await createKey(o.owner, o.project.id, ALL);
  const key = created.value;
  const api = async (method: string, path: string, body?: unknown, ua = "agent-a/1.0") => {
    const headers: Record<string, string> = { "user-agent": ua };
    if (body !== undefined) headers["content-type"] = "application/json";
    const r = await withKey(env, key, path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
  const prepare = async (talentIds: string[]) => {
    const r = await api("POST", "/api/prepare-task", { talentIds });
    if (r.status !== 201) throw new Error(`prepare-task failed: ${JSON.stringify(r.body)}`);
    return r.body.resolutionId as string;
  };
  const report = (resolutionId: string, submissionId: string, verdict: string, id = "typescript-strict") =>
    api("POST", "/api/validation/reports", {
      submissionId,
      resolutionId,
      expertiseResults: [{ id, verdict, ...(verdict === "fail" ? { evidence: ["src/a.ts:1"] } : {}) }],
    });
  return { ...o, key, keyId: created.key.id, api, prepare, report };
}

export interface SeedEvent {
  at: number;
  kind?: string;
  client?: string | null;
  status?: number;
}

let seq = 0;
/** Inserts trace events straight into the journal (a past day, another client…), then waits a turn as a socket client would. */
export async function seedTraceEvents(env: TestEnv, projectId: string, events: SeedEvent[]): Promise<void> {
  await env.database.client.batch(
    events.map((e) => ({
      sql: `INSERT INTO trace_events (id, project_id, kind, via, author_type, author_id, author_name, client, talents_entered, talents_left, resolution_id, status, duration_ms, detail, created_at)
            VALUES (?, ?, ?, 'api', 'key', 'key_x', 'seed', ?, '[]', '[]', NULL, ?, 1, NULL, ?)`,
      args: [
        `trc_${orderedId(e.at, 900_000 + seq++)}`,
        projectId,
        e.kind ?? "doctor",
        e.client === undefined ? "seed/1" : e.client,
        e.status ?? 200,
        e.at,
      ],
    })),
    "write",
  );
  await nextTurn();
}

/** Runs SQL from outside the app (backdating rows), then waits a turn. */
export async function sql(env: TestEnv, text: string, args: (string | number | null)[] = []): Promise<void> {
  await env.database.client.execute({ sql: text, args });
  await nextTurn();
}

/** Creates an expertise, confirms triggers, publishes v1 and, unless told otherwise, activates it (owner's client). */
export async function publishedExpertise(owner: WebClient, orgSlug: string, slug: string, activate = true) {
  const created = await owner.post("/web/orgs/current/expertises", {
    slug,
    content: talentMd(slug, {
      title: `Billing ${slug}`,
      summary: `How we bill in ${slug}. Designate for any change to billing code.`,
      requires: "[typescript-strict]",
      rules: `
  - { id: BIL-001, severity: blocking, title: Amounts are integers in minor units., check: Look for floats holding money. }
  - { id: BIL-002, severity: blocking, title: Every charge carries an idempotency key., check: Look for charge calls without one. }
  - { id: BIL-003, severity: advisory, title: Log the invoice id at each step., check: Look for log lines without invoiceId. }`,
      tests: `
  - { rule: BIL-001, pass: "amountCents: 1299", fail: "amount: 12.99" }
  - { rule: BIL-002, pass: "charge({ idempotencyKey })", fail: "charge({})" }`,
    }),
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect(
    (await owner.put(`/web/orgs/current/expertises/${id}/triggers`, { files: ["src/billing/**"], keywords: ["billing"] })).status,
  ).toBe(200);
  expect((await owner.post(`/web/orgs/current/expertises/${id}/publish`)).status).toBe(200);
  if (activate) expect((await owner.post(`/web/orgs/current/expertises/${id}/activate`)).status).toBe(200);
  return { id, ref: `@${orgSlug}/${slug}` };
}
