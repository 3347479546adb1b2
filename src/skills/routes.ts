/**
 * The key API behind the MCP Skills extension (docs/api.md "Skills"): a listing of
 * the project's skills with their file manifests, one entry, a directory's children and one
 * file. Reading talents is what the `deepen` scope grants, so all four need it. Every call is
 * traced. The MCP adapter translates `skills/list`, `skills/get`, `resources/directory/read`
 * and `resources/read` of a `skill://` URI into these routes and adds nothing. Their key-route
 * descriptors (http/keyRoute.ts) are here; src/keyRoutes.ts lists them with the others.
 */
import { Elysia } from "elysia";
import type { JournalDeps } from "../journal/journal";
import type { CatalogDeps } from "../catalog/state";
import type { KeyPrincipal } from "../auth/key";
import type { Guards } from "../auth/guards";
import { keyApiTracer } from "../journal/trace";
import { guardOf, type KeyRoute, traceKinds, type TracedRoute } from "../http/keyRoute";
import { a, I, map, n, o, page, S, str } from "../http/schema";
import { intParam, strParam } from "../http/query";
import {
  DIRECTORY_PAGE_DEFAULT,
  DIRECTORY_PAGE_MAX,
  getSkill,
  listSkills,
  readDirectory,
  readSkillFile,
  SKILLS_PAGE_DEFAULT,
  SKILLS_PAGE_MAX,
} from "./service";

const Frontmatter = o({ name: S, description: S, license: S, compatibility: S, "allowed-tools": S, metadata: map(S) });
const Skill = o({ uri: S, frontmatter: Frontmatter, resources: a(o({ uri: S, digest: S, size: I })) });
const uriParam = { name: "uri", schema: str(), required: true };

/** The skills' key routes, by name. */
export const SKILLS_KEY_ROUTES = {
  skills: {
    method: "GET",
    path: "/api/skills",
    scope: "deepen",
    kind: "skills_list",
    summary: "The project's active talents as Agent Skills (MCP Skills extension), paged",
    query: page(SKILLS_PAGE_MAX),
    errors: [400],
    answer: o({ skills: a(Skill), nextCursor: n(S) }),
  },
  skillEntry: {
    method: "GET",
    path: "/api/skills/entry",
    scope: "deepen",
    kind: "skill_get",
    summary: "One skill with its file manifest (digests, sizes)",
    query: [uriParam],
    errors: [400, 404],
    answer: o({ skill: Skill }),
  },
  skillDirectory: {
    method: "GET",
    path: "/api/skills/directory",
    scope: "deepen",
    kind: "skill_directory",
    summary: "A skill directory's entries",
    query: [uriParam, ...page(DIRECTORY_PAGE_MAX)],
    errors: [400, 404],
    answer: o({ uri: S, resources: a(o({ uri: S, name: S, description: S, mimeType: S, size: I })), nextCursor: n(S) }),
  },
  skillFile: {
    method: "GET",
    path: "/api/skills/file",
    scope: "deepen",
    kind: "skill_read",
    summary: "One skill file, the exact bytes its digest names",
    query: [uriParam],
    errors: [400, 404],
    answer: o({ uri: S, mimeType: S, text: S, blob: S, digest: S, size: I }),
  },
} satisfies Record<string, KeyRoute>;
const R = SKILLS_KEY_ROUTES;

/** Trace kinds of the skills routes, by "METHOD route". */
export const SKILLS_TRACE_KINDS: Record<string, TracedRoute> = traceKinds(Object.values(R));

/** The longest URI the routes read (a skill path plus a file path of at most 200 characters, encoded). */
export const SKILL_URI_MAX = 1000;

const project = (p: KeyPrincipal) => ({ id: p.projectId, organizationId: p.organizationId });

export function skillRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  const src = () => ({ database: deps.database, catalog: deps.state.catalog! });
  return new Elysia()
    .use(guards)
    .onAfterResponse(keyApiTracer(deps.journal, SKILLS_TRACE_KINDS))
    .get(
      R.skills.path,
      ({ principal, query }) =>
        listSkills(
          src(),
          project(principal),
          intParam(query, "limit", 1, SKILLS_PAGE_MAX, SKILLS_PAGE_DEFAULT),
          strParam(query, "cursor", 400),
        ),
      guardOf(R.skills),
    )
    .get(
      R.skillEntry.path,
      ({ principal, query }) => getSkill(src(), project(principal), strParam(query, "uri", SKILL_URI_MAX, true)),
      guardOf(R.skillEntry),
    )
    .get(
      R.skillDirectory.path,
      ({ principal, query }) =>
        readDirectory(
          src(),
          project(principal),
          strParam(query, "uri", SKILL_URI_MAX, true),
          intParam(query, "limit", 1, DIRECTORY_PAGE_MAX, DIRECTORY_PAGE_DEFAULT),
          strParam(query, "cursor", 400),
        ),
      guardOf(R.skillDirectory),
    )
    .get(
      R.skillFile.path,
      ({ principal, query }) => readSkillFile(src(), project(principal), strParam(query, "uri", SKILL_URI_MAX, true)),
      guardOf(R.skillFile),
    );
}
