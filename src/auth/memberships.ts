/**
 * A person's memberships: the organizations they belong to, with their role. Read on every
 * signed-in request (the org guard, the page header), so it sits with the sessions in auth,
 * below identity and tenancy; tenancy writes the memberships (tenancy/service.ts).
 */
import { and, eq } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { keptAll } from "../db/versionMemo";
import { members, organizations, type MemberRole, type OrgStatus } from "../db/schema";

export interface OrgMembership {
  id: string;
  slug: string;
  name: string;
  status: OrgStatus;
  role: MemberRole;
}

/**
 * A membership as an answer: exactly its declared fields. A row read through the prepared reader
 * (Database.get) carries the driver's `_metadata`; an answer never passes a row on as it is.
 */
export function membershipView(m: OrgMembership): OrgMembership {
  return { id: m.id, slug: m.slug, name: m.name, status: m.status, role: m.role };
}

/** A user's memberships with their organizations (the shape of OrgMembership). */
function memberships(db: Database["db"] | Tx) {
  return db
    .select({ id: organizations.id, slug: organizations.slug, name: organizations.name, status: organizations.status, role: members.role })
    .from(members)
    .innerJoin(organizations, eq(organizations.id, members.organizationId));
}

/** The organizations a user belongs to, with their role. */
export async function listMemberships(database: Database, userId: string): Promise<OrgMembership[]> {
  // every page's header reads this: the prepared reader, kept for the configuration epoch (db/versionMemo.ts)
  return keptAll<OrgMembership>(
    database,
    `SELECT o.id AS id, o.slug AS slug, o.name AS name, o.status AS status, m.role AS role
     FROM members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ? ORDER BY m.created_at DESC`,
    [userId],
  );
}

/**
 * The user's membership in one organization, or undefined. Read by every /web business route
 * (the org guard): outside a transaction through the prepared reader (~15 µs against ~300 µs
 * for the drizzle query).
 */
export async function findMembership(database: Database | Tx, userId: string, organizationId: string): Promise<OrgMembership | undefined> {
  if ("db" in database) {
    return database.get<OrgMembership>(
      `SELECT o.id AS id, o.slug AS slug, o.name AS name, o.status AS status, m.role AS role
       FROM members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ? AND m.organization_id = ? LIMIT 1`,
      [userId, organizationId],
    );
  }
  const rows = await memberships(database)
    .where(and(eq(members.userId, userId), eq(members.organizationId, organizationId)))
    .limit(1);
  return rows[0];
}
