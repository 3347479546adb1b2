/** @jsxImportSource hono/jsx */
/**
 * Names, not ids (docs/design.md "Names, not ids, in logs"): the details of the audit log's entries and of the security
 * events as a person reads them — a project's name for `projectId`, a key's name for `keyId`, a person's name and
 * e-mail for a user id, tools as a plain comma list —, the raw id kept in the `title` (hover). The ids of a page's
 * rows are gathered first and read with one query (`readNames`: one `IN (…)` per kind of id, in one statement), never
 * one per row. What is stored, answered as JSON and exported stays as it is: only the page says it in words.
 */
import type { Child } from "hono/jsx";
import type { Database } from "../db/client";

/** A prefixed id (lib/ids.ts) a page can name, and the kind it names. */
const NAMED = /^(prj|key|usr|org|spc|inv|exp)_[0-9A-Z]{20,30}$/;

/** What each kind of id is read as: its table, the words of its name, and how it belongs to an organization (if it does). */
const KINDS: Record<string, { table: string; name: string; owned?: string }> = {
  prj: { table: "projects", name: "name", owned: "organization_id = ?" },
  key: { table: "api_keys", name: "name", owned: "project_id IN (SELECT id FROM projects WHERE organization_id = ?)" },
  usr: { table: "users", name: "CASE WHEN name <> '' THEN name || ' (' || email || ')' ELSE email END" },
  org: { table: "organizations", name: "name" },
  spc: { table: "specializations", name: "name", owned: "organization_id = ?" },
  inv: { table: "invitations", name: "'invitation of ' || email", owned: "organization_id = ?" },
  exp: { table: "expertises", name: "slug", owned: "organization_id = ?" },
};

/** The names of the ids a page shows, by id (an id not found keeps itself). */
export type Names = ReadonlyMap<string, string>;

/** Every id a value holds that a page can name: the value itself, an item of a list, a field of an object (two levels). */
export function idsIn(values: readonly unknown[], into: Set<string> = new Set(), depth = 0): Set<string> {
  for (const v of values) {
    if (typeof v === "string") {
      if (NAMED.test(v)) into.add(v);
    } else if (depth < 2 && Array.isArray(v)) idsIn(v, into, depth + 1);
    else if (depth < 2 && v !== null && typeof v === "object") idsIn(Object.values(v), into, depth + 1);
  }
  return into;
}

/**
 * The names of `ids` in one statement (one `IN (…)` per kind). `organizationId`: the organization whose page asks —
 * its projects, keys, specializations, invitations and expertises only; null for a platform administrator's page.
 */
export async function readNames(database: Database, organizationId: string | null, ids: ReadonlySet<string>): Promise<Names> {
  const byKind = new Map<string, string[]>();
  for (const id of ids) {
    const kind = id.slice(0, id.indexOf("_"));
    byKind.set(kind, [...(byKind.get(kind) ?? []), id]);
  }
  const parts: string[] = [];
  const args: string[] = [];
  for (const [kind, list] of byKind) {
    const k = KINDS[kind]!;
    const owned = organizationId !== null && k.owned ? ` AND ${k.owned}` : "";
    parts.push(`SELECT id, ${k.name} AS name FROM ${k.table} WHERE id IN (${list.map(() => "?").join(", ")})${owned}`);
    args.push(...list, ...(owned ? [organizationId!] : []));
  }
  if (parts.length === 0) return new Map();
  const rows = await database.all<{ id: string; name: string }>(parts.join(" UNION ALL "), args);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** A detail field's name in words: `projectId` → "project", `keyIds` → "keys", `expiresAt` → "expires at". */
export function fieldWords(key: string): string {
  const plain = key.replace(/Ids$/, "s").replace(/Id$/, "");
  const words = plain
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/_/g, " ")
    .toLowerCase();
  return words === "user" ? "person" : words;
}

/** One value in words: a named id as its name (the id on hover), a list as a comma list, anything else as short text. */
export function ValueWords(props: { value: unknown; names: Names }): Child {
  const v = props.value;
  if (typeof v === "string") {
    const name = props.names.get(v);
    return name !== undefined ? <span title={v}>{name}</span> : v;
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return "none";
    return (
      <>
        {v.map((x, i) => (
          <>
            {i > 0 ? ", " : ""}
            <ValueWords value={x} names={props.names} />
          </>
        ))}
      </>
    );
  }
  if (v === null || v === undefined) return "none";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** A record's fields in words, `field: value` separated by semicolons ("—" for none). */
export function DetailWords(props: { detail: Record<string, unknown> | null | undefined; names: Names }): Child {
  const entries = Object.entries(props.detail ?? {});
  if (entries.length === 0) return "—";
  return (
    <>
      {entries.map(([k, v], i) => (
        <>
          {i > 0 ? "; " : ""}
          {fieldWords(k)}: <ValueWords value={v} names={props.names} />
        </>
      ))}
    </>
  );
}

/** What an audit entry changed in words: `field: before → after` for each field either side names. */
export function ChangeWords(props: { before: Record<string, unknown> | null; after: Record<string, unknown> | null; names: Names }): Child {
  const { before, after, names } = props;
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  if (keys.length === 0) return "—";
  return (
    <>
      {keys.map((k, i) => {
        const b = before && k in before;
        const a = after && k in after;
        return (
          <>
            {i > 0 ? "; " : ""}
            {fieldWords(k)}:{" "}
            {b && a ? (
              <>
                <ValueWords value={before![k]} names={names} /> → <ValueWords value={after![k]} names={names} />
              </>
            ) : a ? (
              <ValueWords value={after![k]} names={names} />
            ) : (
              <>
                <ValueWords value={before![k]} names={names} /> (gone)
              </>
            )}
          </>
        );
      })}
    </>
  );
}
