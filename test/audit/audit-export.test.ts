/**
 * The audit log's export (`GET /web/orgs/current/audit-log/export?format=jsonl|csv`): the JSON
 * route's entries, oldest first, across several pages of the stream; CSV quoted by RFC 4180; the
 * filters apply. The 1,000,000-row memory bound is measured by bench/auditexport.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { nextTurn, orgWithProject, testEnv, type TestEnv, type WebClient } from "../helpers";
import { EXPORT_PAGE } from "../../src/audit/export";

let env: TestEnv;
let owner: WebClient;
let orgId: string;
const SEEDED = EXPORT_PAGE * 2 + 37;
/** A label with every character RFC 4180 quotes, and a before holding a comma and quotes. */
const AWKWARD = 'Ann "the admin", ops\r\nteam';

beforeAll(async () => {
  env = await testEnv();
  const o = await orgWithProject(env, "Exported");
  owner = o.owner;
  orgId = o.org.id;
  await env.database.client.execute({
    sql: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
          INSERT INTO audit_entries (id, organization_id, at, actor_kind, actor_id, actor_label, action, object_kind, object_id, before, after)
          SELECT ${env.database.dialect === "sqlite" ? "printf('aud_00%024d', i)" : "'aud_00' || lpad(i::text, 24, '0')"}, ?, 1700000000000 + i * 1001, 'key', 'key_x', ?, CASE WHEN i % 2 = 0 THEN 'even.thing' ELSE 'odd.thing' END,
                 'thing', 'obj_' || i, CASE WHEN i % 3 = 0 THEN '{"note":"a, \\"quoted\\" value"}' END, '{"n":' || i || '}' FROM n`,
    args: [SEEDED, orgId, AWKWARD],
  });
  await nextTurn();
});
afterAll(() => env.close());

async function exported(query: string): Promise<{ res: Response; text: string }> {
  const res = await owner.call("GET", `/web/orgs/current/audit-log/export?${query}`);
  return { res, text: await res.text() };
}

/** Every entry through the JSON route, oldest first. */
async function allEntries(): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = "";
  while (cursor !== null) {
    const r = await owner.get(`/web/orgs/current/audit-log?limit=200${cursor ? `&cursor=${cursor}` : ""}`);
    out.push(...r.body.entries);
    cursor = r.body.nextCursor;
  }
  return out.reverse();
}

/** An RFC 4180 reader: records of fields, quoted fields with doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"' && field === "") {
      i++;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') (field += '"'), (i += 2);
        else if (text[i] === '"') break;
        else field += text[i++];
      }
      i++;
    } else if (ch === ",") row.push(field), (field = ""), i++;
    else if (ch === "\r" && text[i + 1] === "\n") row.push(field), rows.push(row), (row = []), (field = ""), (i += 2);
    else (field += ch), i++;
  }
  return rows;
}

describe("audit-log export", () => {
  test("JSONL: every entry as the JSON route shows it, oldest first, across several pages of the stream", async () => {
    const { res, text } = await exported("format=jsonl");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/jsonl; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-log-.+\.jsonl"$/);
    const lines = text.split("\n");
    expect(lines.pop()).toBe(""); // each line ends with \n
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.length).toBeGreaterThan(SEEDED);
    expect(parsed).toEqual(await allEntries());
  });

  test("CSV: a header, then one RFC 4180 record per entry (commas, quotes and line breaks quoted), oldest first", async () => {
    const { res, text } = await exported("format=csv");
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const rows = parseCsv(text);
    expect(rows[0]).toEqual(["id", "at", "actor_kind", "actor_id", "actor_label", "action", "object_kind", "object_id", "before", "after"]);
    const entries = await allEntries();
    expect(rows.length - 1).toBe(entries.length);
    rows.slice(1).forEach((r, i) => {
      const e = entries[i]!;
      expect(r).toEqual([
        e.id,
        e.at,
        e.actor.kind,
        e.actor.id,
        e.actor.label,
        e.action,
        e.object.kind,
        e.object.id,
        e.before === null ? "" : JSON.stringify(e.before),
        e.after === null ? "" : JSON.stringify(e.after),
      ]);
    });
    expect(text).toContain(`"Ann ""the admin"", ops\r\nteam"`);
  });

  test("CSV: a value a spreadsheet would run as a formula (=, +, -, @, tab, CR first) begins with an apostrophe; JSONL keeps it as it is", async () => {
    const risky = ['=HYPERLINK("http://x.test")', "+1", "-2", "@SUM(A1)", "\tx", "\rx"];
    for (const [i, label] of risky.entries()) {
      await env.database.client.execute({
        sql: `INSERT INTO audit_entries (id, organization_id, at, actor_kind, actor_id, actor_label, action, object_kind, object_id)
              VALUES (?, ?, ?, 'user', 'usr_x', ?, 'formula.test', 'thing', ?)`,
        args: [`aud_zz${i}`, orgId, 1800000000000 + i, label, label],
      });
    }
    await nextTurn();
    const rows = parseCsv((await exported("format=csv&action=formula.test")).text).slice(1);
    expect(rows.map((r) => [r[4], r[7]])).toEqual(risky.map((l) => [`'${l}`, `'${l}`]));
    const jsonl = (await exported("format=jsonl&action=formula.test")).text.trim().split("\n");
    expect(jsonl.map((l) => JSON.parse(l).actor.label)).toEqual(risky);
  });

  test("the filters apply to the export (action, time window)", async () => {
    const odd = (await exported("format=jsonl&action=odd.thing")).text.trim().split("\n");
    expect(odd.length).toBe(Math.ceil(SEEDED / 2));
    expect(odd.every((l) => JSON.parse(l).action === "odd.thing")).toBe(true);
    const window = (
      await exported(
        `format=jsonl&from=${new Date(1700000000000 + 1001).toISOString()}&to=${new Date(1700000000000 + 3 * 1001).toISOString()}`,
      )
    ).text;
    expect(
      window
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).object.id),
    ).toEqual(["obj_1", "obj_2"]);
  });

  test("format defaults to JSONL; a format other than jsonl or csv → 400 validation_failed", async () => {
    expect((await exported("")).res.headers.get("content-type")).toBe("application/jsonl; charset=utf-8");
    const bad = await owner.get("/web/orgs/current/audit-log/export?format=xlsx");
    expect(`${bad.status} ${bad.body.error}`).toBe("400 validation_failed");
    expect(JSON.stringify(bad.body)).toContain("format");
  });
});
