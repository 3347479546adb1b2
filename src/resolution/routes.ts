/**
 * The project-key API of the agent loop (docs/api.md "The agent loop"): designable, prepare-task, playbook, reports,
 * search and reads (one deepen scope for both), doctor, discovery, install. The project is the
 * key's; `x-svc-project` is never read. Every call is traced.
 */
import { lateJson } from "../http/answer";
import { Elysia } from "elysia";
import type { JournalDeps } from "../journal/journal";
import type { CatalogDeps } from "../catalog/state";
import type { KeyPrincipal } from "../auth/key";
import type { Guards } from "../auth/guards";
import { keyApiTracer, noteTrace, viaOf } from "../journal/trace";
import { notFound, validationFailed } from "../http/errors";
import { intParam, oneOf, strParam } from "../http/query";
import { disableTalents, listInstalled, readInstallIds } from "../selection/service";
import { readFiles, READ_MAX_URIS, search, SEARCH_K_MAX, SEARCH_SCOPES } from "./deepen";
import { discoveryPlaybook } from "./discovery";
import { rankByRelevance, relevanceOf } from "../selection/relevance";
import { doctor } from "./doctor";
import { playbook } from "./playbook";
import { prepareTask, type Author } from "./prepare";
import { recordReport } from "./reports";
import { activeItems, installByIds } from "../selection/sources";

/** Trace kinds of the key API, by "METHOD route". */
export const KEY_API_TRACE_KINDS: Record<string, string> = {
  "GET /api/prepare-task/designable": "designable",
  "POST /api/prepare-task": "prepare_task",
  "GET /api/validation/playbook": "validate",
  "POST /api/validation/reports": "record_validation",
  "GET /api/search": "search",
  "POST /api/talents/get": "read",
  "GET /api/doctor": "doctor",
  "GET /api/catalog": "catalog",
  "GET /api/discovery/playbook": "discover",
  "PATCH /api/projects/:id/talents": "install",
};

const project = (p: KeyPrincipal) => ({ id: p.projectId, organizationId: p.organizationId });
const author = (p: KeyPrincipal, request: Request): Author => ({ type: p.kind, id: p.id, via: viaOf(request) });
const asObject = (body: unknown): Record<string, unknown> => {
  if (body === undefined || body === null || body === "") return {};
  if (typeof body !== "object" || Array.isArray(body)) throw validationFailed([{ path: "", message: "the body must be a JSON object" }]);
  return body as Record<string, unknown>;
};

export function resolutionRoutes(deps: CatalogDeps & JournalDeps, guards: Guards) {
  const src = () => ({ database: deps.database, catalog: deps.state.catalog! });
  // the role the guard read on this very call (keys and tokens act for their member)
  const isOrgAdmin = (p: KeyPrincipal) => p.role === "owner" || p.role === "admin";
  return (
    new Elysia()
      .use(guards)
      .onAfterResponse(keyApiTracer(deps.journal, KEY_API_TRACE_KINDS))
      // ---- prepare_task
      .get(
        "/api/prepare-task/designable",
        async ({ principal }) => {
          const [active, relevance] = await Promise.all([
            activeItems(src(), project(principal)),
            relevanceOf(deps.database, deps.state.catalog!, principal.projectId),
          ]);
          // relevant first, each with why (the project's relevance settings; they order, never designate)
          return {
            talents: rankByRelevance([...active.values()], (i) => i.talent, relevance.settings).map(({ item: i, relevant, why }) => ({
              id: i.id,
              kind: i.kind,
              version: i.version,
              title: i.talent.title,
              summary: i.talent.summary,
              triggers: i.talent.triggers,
              requires: i.talent.requires,
              conflicts: i.talent.conflicts,
              tokens: i.talent.tokens,
              relevant,
              why,
            })),
            next: "Designate the talents your task touches: POST /api/prepare-task {talentIds: [...]}. Designate nothing you do not need: only what is designated is served and reviewed.",
          };
        },
        { key: "prepare_task" },
      )
      .post(
        "/api/prepare-task",
        async ({ principal, body, request, set }) => {
          const r = await prepareTask(src(), project(principal), author(principal, request), asObject(body));
          noteTrace(request, { resolutionId: r.resolutionId, detail: { talents: r.talents.map((x) => x.id), tokens: r.tokens } });
          return lateJson(r, 201);
        },
        { key: "prepare_task" },
      )
      // ---- validate / record_validation
      .get(
        "/api/validation/playbook",
        async ({ principal, query, request }) => {
          const resolutionId = strParam(query, "resolutionId", 100, true);
          const talent = strParam(query, "talent", 200);
          const include = oneOf(query, "include", ["detectors"] as const);
          noteTrace(request, {
            resolutionId,
            detail: talent || include ? { ...(talent ? { talent } : {}), ...(include ? { include } : {}) } : undefined,
          });
          return playbook(deps.database, principal.projectId, resolutionId, talent, { detectors: include === "detectors" });
        },
        { key: "validate" },
      )
      .post(
        "/api/validation/reports",
        async ({ principal, body, request, set }) => {
          const b = asObject(body);
          if (typeof b.resolutionId === "string") noteTrace(request, { resolutionId: b.resolutionId });
          const r = await recordReport(deps.database, principal.projectId, author(principal, request), b);
          noteTrace(request, { detail: { submissionId: r.body.submissionId, replayed: r.body.replayed, summary: r.body.summary } });
          set.status = r.status;
          return r.body;
        },
        { key: "record_validation" },
      )
      // ---- deepen: search and read, one scope
      .get(
        "/api/search",
        async ({ principal, query }) => {
          return search(src(), project(principal), {
            query: strParam(query, "query", 200, true),
            k: intParam(query, "k", 1, SEARCH_K_MAX),
            scope: oneOf(query, "scope", SEARCH_SCOPES),
            resolutionId: strParam(query, "resolutionId", 100),
          });
        },
        { key: "deepen" },
      )
      .post(
        "/api/talents/get",
        async ({ principal, body, request }) => {
          const b = asObject(body);
          // the body's search fields follow GET /api/search's rules (one set of readers: http/query.ts)
          const resolutionId = strParam(b, "resolutionId", 100);
          if (resolutionId) noteTrace(request, { resolutionId });
          if (b.query !== undefined && b.uri === undefined && b.uris === undefined) {
            return search(src(), project(principal), {
              query: strParam(b, "query", 200, true),
              k: intParam(b, "k", 1, SEARCH_K_MAX),
              scope: oneOf(b, "scope", SEARCH_SCOPES),
              resolutionId,
            });
          }
          let uris: string[];
          if (b.uri !== undefined && b.uris === undefined) {
            if (typeof b.uri !== "string") throw validationFailed([{ path: "uri", message: "must be a talent:// uri" }]);
            uris = [b.uri];
          } else if (b.uris !== undefined && b.uri === undefined) {
            if (!Array.isArray(b.uris))
              throw validationFailed([{ path: "uris", message: `must be an array of {uri} (at most ${READ_MAX_URIS})` }]);
            uris = b.uris.map((u: unknown, i: number) => {
              const v = typeof u === "string" ? u : u && typeof u === "object" ? (u as { uri?: unknown }).uri : undefined;
              if (typeof v !== "string") throw validationFailed([{ path: `uris[${i}]`, message: 'must be {uri: "talent://…"}' }]);
              return v;
            });
          } else {
            throw validationFailed([{ path: "", message: "give exactly one of uri, uris (with resolutionId), or query" }]);
          }
          if (b.section !== undefined && (typeof b.section !== "string" || b.section.trim() === "" || b.section.length > 200)) {
            throw validationFailed([{ path: "section", message: "must be a heading text of at most 200 characters" }]);
          }
          return { files: await readFiles(src(), project(principal), { uris, resolutionId, section: b.section as string | undefined }) };
        },
        { key: "deepen" },
      )
      // ---- doctor, discovery
      .get(
        "/api/doctor",
        async ({ principal, query }) => {
          const include = oneOf(query, "include", ["selection"] as const);
          const found = await doctor(src(), project(principal), { admin: isOrgAdmin(principal), selection: include === "selection" });
          // the service's own state beside the selection's: a full disk refuses the writes an agent is about to make
          return { ...found, service: deps.database.storage.check() };
        },
        { key: "doctor" },
      )
      .get(
        "/api/discovery/playbook",
        async ({ principal }) => {
          const [rows, relevance] = await Promise.all([
            listInstalled(deps.database, principal.projectId),
            relevanceOf(deps.database, deps.state.catalog!, principal.projectId),
          ]);
          return discoveryPlaybook(
            deps.state.catalog!,
            { installed: rows.length, active: rows.filter((r) => r.enabled).length },
            relevance.settings,
          );
        },
        { key: "discover" },
      )
      // ---- install (installs or disables)
      .patch(
        "/api/projects/:id/talents",
        async ({ principal, params, body, request }) => {
          if (params.id !== "current" && params.id !== principal.projectId) throw notFound("No such project for this key.");
          const b = asObject(body);
          const list = readInstallIds(b);
          if (b.enabled !== undefined && typeof b.enabled !== "boolean")
            throw validationFailed([{ path: "enabled", message: "must be false (to disable) or true" }]);
          if (b.enabled === false) {
            const change = await deps.database.write((tx) => disableTalents(tx, principal.projectId, list));
            noteTrace(request, { left: change.left });
            return { disabled: change.left, unchanged: change.unchanged };
          }
          const change = await installByIds(
            src(),
            principal.organizationId,
            principal.projectId,
            list,
            `${principal.kind}:${principal.id}`,
          );
          noteTrace(request, { entered: change.entered });
          return { installed: change.entered, alreadyInstalled: change.unchanged };
        },
        { key: "install" },
      )
  );
}
