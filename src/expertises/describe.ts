/**
 * The descriptors of the expertise routes (`/web/orgs/current/expertises…`: routes.ts, and the import of
 * rule files), docs/api-expertises.md: each route's OpenAPI row, answer and view (http/route.ts), collected by app.ts.
 */
import type { RouteDescriptor } from "../http/route";
import type { OrgPlace } from "../ui/places";
import { a, arr, B, I, map, n, o, obj, S, str, Triggers } from "../http/schema";
import { EXPERTISE_VIEWS } from "./views/fragments";

/** Who did it: a person by id and e-mail. */
export const Actor = o({ id: S, email: S });
const ExpertiseRow = {
  id: S,
  ref: S,
  slug: S,
  status: S,
  revision: I,
  publishedVersion: n(I),
  serving: n(I),
  title: n(S),
  summary: n(S),
  triggers: n(Triggers),
  triggersConfirmedAt: n(S),
  createdAt: S,
  updatedAt: S,
};
const Version = { version: I, publishedAt: S, publishedBy: n(Actor), contentDigest: S, files: map(S), triggers: n(Triggers) };
/** Proposed trigger values (file globs, keywords), each with why. */
const Proposed = a(o({ value: S, why: S }));
const Expertise = o({
  ...ExpertiseRow,
  working: o({ content: S, files: map(S) }),
  declaredVersion: n(S),
  verification: o({
    valid: B,
    triggersConfirmed: B,
    triggersFrom: n(S),
    publishable: B,
    issues: a(o({ path: S, message: S })),
    content: a(o({ path: S, message: S, kind: S })),
  }),
  unpublishedChanges: B,
  allowedOperations: a(S),
  versions: a(o({ ...Version, declaredVersion: n(S) })),
  createdBy: n(Actor),
  published: o({ version: I, created: B }),
});

/** A lifecycle step's route (`POST …/{id}/publish`, `activate`, `deactivate`, `reactivate`). */
function lifecycle(op: "publish" | "activate" | "deactivate" | "reactivate") {
  return {
    method: "POST",
    path: `/web/orgs/current/expertises/{id}/${op}`,
    summary: op === "publish" ? "Lifecycle: publish (serve: true also serves it, in the same transaction)" : `Lifecycle: ${op}`,
    access: "admin",
    admits: "member",
    ...(op === "publish" ? { body: obj({ expectedRevision: { type: "integer" }, serve: { type: "boolean" } }) } : {}),
    errors: op === "publish" ? [400, 404, 409] : [404, 409],
    answer: Expertise,
    view: () => (op === "publish" ? EXPERTISE_VIEWS.publish() : EXPERTISE_VIEWS.lifecycle(op)),
  } satisfies RouteDescriptor;
}

/** The organization's expertises: owners and admins (the import also a key with the import scope). */
export const EXPERTISE = {
  list: {
    method: "GET",
    path: "/web/orgs/current/expertises",
    summary: "The organization's expertises (status filter)",
    access: "admin",
    admits: "member",
    query: [{ name: "status", schema: str() }],
    answer: o({ expertises: a(o({ ...ExpertiseRow, publishedDeclaredVersion: n(S) })) }),
  },
  create: {
    method: "POST",
    path: "/web/orgs/current/expertises",
    summary: "Create an expertise",
    access: "admin",
    admits: "member",
    body: obj({ slug: str(), content: str(), files: { type: "object", additionalProperties: str() } }, ["slug", "content"]),
    ok: 201,
    errors: [400, 409],
    answer: Expertise,
    view: EXPERTISE_VIEWS.created,
  },
  import: {
    method: "POST",
    path: "/web/orgs/current/expertises/import",
    summary:
      "Import rule files (AGENTS.md, CLAUDE.md, GEMINI.md, .mdc, .cursorrules, Copilot instructions) as drafts: at most 20 files, " +
      "128 KiB each, 1 MiB together; all or nothing. An owner's or admin's session, or a project key with the import scope",
    access: "admin+key:import",
    body: obj({ files: arr(obj({ path: str({ maxLength: 300 }), content: str() }, ["path", "content"])) }, ["files"]),
    ok: 201,
    errors: [400, 413],
    answer: o({
      drafts: a(
        o({
          ...{ id: S, ref: S, slug: S, path: S, format: S, title: S, status: S, rules: a(o({ id: S, severity: S, title: S })) },
          ...{ triggers: Triggers, contentFindings: I, notes: a(S), skipped: a(o({ line: I, text: S, reason: S })), editor: S },
        }),
      ),
    }),
  },
  one: {
    method: "GET",
    path: "/web/orgs/current/expertises/{id}",
    summary: "An expertise with its working version",
    access: "admin",
    admits: "member",
    errors: [404],
    answer: Expertise,
  },
  update: {
    method: "PATCH",
    path: "/web/orgs/current/expertises/{id}",
    summary: "A new working version (expected revision)",
    access: "admin",
    admits: "member",
    body: obj({ expectedRevision: { type: "integer" }, content: str(), files: { type: "object", additionalProperties: str() } }, [
      "expectedRevision",
    ]),
    errors: [400, 404, 409],
    answer: Expertise,
    view: EXPERTISE_VIEWS.saved,
  },
  remove: {
    method: "DELETE",
    path: "/web/orgs/current/expertises/{id}",
    summary: "Delete an expertise",
    access: "admin",
    admits: "member",
    errors: [404],
    answer: o({ deleted: S }),
    view: EXPERTISE_VIEWS.deleted,
  },
  proposeTriggers: {
    method: "POST",
    path: "/web/orgs/current/expertises/{id}/trigger-proposal",
    summary: "Propose triggers",
    access: "admin",
    admits: "member",
    errors: [404],
    answer: o({
      id: S,
      revision: I,
      files: Proposed,
      keywords: Proposed,
      confirmed: n(Triggers),
      triggersConfirmedAt: n(S),
    }),
    view: EXPERTISE_VIEWS.proposal,
  },
  confirmTriggers: {
    method: "PUT",
    path: "/web/orgs/current/expertises/{id}/triggers",
    summary: "Confirm triggers",
    access: "admin",
    admits: "member",
    body: obj({ files: arr(str()), keywords: arr(str()) }),
    errors: [400, 404],
    answer: Expertise,
    view: EXPERTISE_VIEWS.triggers,
  },
  publish: lifecycle("publish"),
  activate: lifecycle("activate"),
  deactivate: lifecycle("deactivate"),
  reactivate: lifecycle("reactivate"),
  version: {
    method: "GET",
    path: "/web/orgs/current/expertises/{id}/versions/{version}",
    summary: "A published version",
    access: "admin",
    admits: "member",
    errors: [404],
    answer: o({ ...Version, content: S, fileDigests: map(S) }),
  },
} satisfies Record<string, RouteDescriptor>;

/** The same descriptors as a list, in the OpenAPI document's order (app.ts collects it). */
export const EXPERTISE_ROUTES: RouteDescriptor[] = Object.values(EXPERTISE);

/** The navigation entry of its page (pages.tsx). */
export const EXPERTISE_PLACES: OrgPlace[] = [
  {
    href: "/org/expertises",
    label: "Expertises",
    title: "Expertises",
    text: "the organization's private talents: write, verify, publish",
    admin: true,
    header: true,
  },
];
