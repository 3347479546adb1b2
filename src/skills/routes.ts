/**
 * The key API behind the MCP Skills extension (docs/api.md "Skills"): a listing of
 * the project's skills with their file manifests, one entry, a directory's children and one
 * file. Reading talents is what the `deepen` scope grants, so all four need it. Every call is
 * traced. The MCP adapter translates `skills/list`, `skills/get`, `resources/directory/read`
 * and `resources/read` of a `skill://` URI into these routes and adds nothing.
 */
import { Elysia } from "elysia";
import type { JournalDeps } from "../journal/journal";
import type { CatalogDeps } from "../catalog/state";
import type { KeyPrincipal } from "../auth/key";
import type { Guards } from "../auth/guards";
import type { TraceJournal } from "../journal/journal";
import { keyApiTracer } from "../journal/trace";
import { guardOf, traceKinds, type TracedRoute } from "../http/keyRoute";
import { KEY_ROUTES as R } from "../http/keyRoutes";
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

/** Trace kinds of the skills routes, by "METHOD route". */
export const SKILLS_TRACE_KINDS: Record<string, TracedRoute> = traceKinds([R.skills, R.skillEntry, R.skillDirectory, R.skillFile]);

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
