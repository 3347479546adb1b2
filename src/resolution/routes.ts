/**
 * The project-key API of the agent loop (docs/api.md "The agent loop"): designable, prepare-task, playbook, reports,
 * search and reads (one deepen scope for both), doctor, discovery, install. The project is the
 * key's; `x-svc-project` is never read. Every call is traced. Paths, scopes and trace kinds are the
 * descriptors' (keyRoutes.ts); what an answer tells the caller to call next follows its channel (wording.ts).
 */
import { lateAnswer } from "../http/answer";
import { Elysia } from "elysia";
import type { JournalDeps } from "../journal/journal";
import type { CatalogDeps } from "../catalog/state";
import type { KeyPrincipal } from "../auth/key";
import type { Guards } from "../auth/guards";
import { keyApiTracer, noteTrace, viaOf } from "../journal/trace";
import { notFound, validationFailed } from "../http/errors";
import { keyActor } from "../audit/record";
import { DIGESTS_META, forChannel, guardOf, MACHINE_FIELDS, noteMcpMeta, traceKinds, type TracedRoute } from "../http/keyRoute";
import { RESOLUTION_KEY_ROUTES as R } from "./keyRoutes";
import { voiceOf } from "../http/wording";
import { designableNext } from "./wording";
import { intParam, oneOf, strParam } from "../http/query";
import { capReads } from "./deepenCap";
import { disableTalents, listInstalled, readInstallIds } from "../selection/service";
import { contextBudgetOf } from "./budget";
import { listServableExpertises } from "../expertises/servable";
import { readFiles, READ_MAX_URIS, search, SEARCH_K_MAX, SEARCH_SCOPES } from "./deepen";
import { discoveryPlaybook, readLanguages } from "./discovery";
import { rankByRelevance, relevanceOf } from "../selection/relevance";
import { doctor } from "./doctor";
import { playbook } from "./playbook";
import { prepareTask, type Author } from "./prepare";
import { recordReport } from "./reports";
import { activeItems } from "../selection/sources";
import { installWithPrerequisites } from "./install";
import type { SignerDeps } from "../signing/signer";

/** Trace kinds of the routes of this plugin, by "METHOD route". */
export const KEY_API_TRACE_KINDS: Record<string, TracedRoute> = traceKinds(Object.values(R));

const project = (p: KeyPrincipal) => ({ id: p.projectId, organizationId: p.organizationId });
const author = (p: KeyPrincipal, request: Request): Author => ({ type: p.kind, id: p.id, via: viaOf(request) });
const asObject = (body: unknown): Record<string, unknown> => {
  if (body === undefined || body === null || body === "") return {};
  if (typeof body !== "object" || Array.isArray(body)) throw validationFailed([{ path: "", message: "the body must be a JSON object" }]);
  return body as Record<string, unknown>;
};

type Deps = CatalogDeps & JournalDeps & SignerDeps;
const source = (deps: Deps) => ({ database: deps.database, catalog: deps.state.catalog! });
/** What prepare-task reads: the sources, and the signer of its manifest. */
const preparing = (deps: Deps) => ({ ...source(deps), signer: deps.signer, iss: deps.config.baseUrl });

/** The uris a read names: `uri` or `uris` (exactly one of them); 400 otherwise. */
function readUris(b: Record<string, unknown>): string[] {
  if (b.uri !== undefined && b.uris === undefined) {
    if (typeof b.uri !== "string") throw validationFailed([{ path: "uri", message: "must be a talent:// uri" }]);
    return [b.uri];
  }
  if (b.uris !== undefined && b.uri === undefined) {
    if (!Array.isArray(b.uris)) throw validationFailed([{ path: "uris", message: `must be an array of {uri} (at most ${READ_MAX_URIS})` }]);
    return b.uris.map((u: unknown, i: number) => {
      const v = typeof u === "string" ? u : u && typeof u === "object" ? (u as { uri?: unknown }).uri : undefined;
      if (typeof v !== "string") throw validationFailed([{ path: `uris[${i}]`, message: 'must be {uri: "talent://…"}' }]);
      return v;
    });
  }
  throw validationFailed([
    { path: "", message: "give uri (a talent:// uri to read) or query (a text to search for); uris reads several at once" },
  ]);
}

/** Designable, prepare-task, playbook and reports. */
function loopRoutes(deps: Deps, guards: Guards) {
  const src = () => source(deps);
  return new Elysia()
    .use(guards)
    .onAfterResponse(keyApiTracer(deps.journal, KEY_API_TRACE_KINDS))
    .get(
      R.designable.path,
      async ({ principal, request }) => {
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
            languages: i.talent.languages,
            requires: i.talent.requires,
            conflicts: i.talent.conflicts,
            tokens: i.talent.tokens,
            relevant,
            why,
          })),
          next: designableNext(voiceOf(request, principal.scopes)),
        };
      },
      guardOf(R.designable),
    )
    .post(
      R.prepareTask.path,
      async ({ principal, body, request }) => {
        const voice = voiceOf(request, principal.scopes);
        const budget = await contextBudgetOf(deps.database, principal.projectId);
        const r = await prepareTask(preparing(deps), project(principal), author(principal, request), asObject(body), voice, budget);
        // the trace says what was served and what the budget cut (designated, frozen, not served)
        const cut = r.notServed.length > 0 ? { notServed: r.notServed } : {};
        noteTrace(request, { resolutionId: r.resolutionId, detail: { talents: r.served, tokens: r.tokens, ...cut } });
        // over MCP, what the body left out for the model's sake (nothing for a key-API caller)
        noteMcpMeta(request, { [DIGESTS_META]: r.digests, ...(r.attestation ? { [MACHINE_FIELDS.attestation]: r.attestation } : {}) });
        return lateAnswer(r.json, 201, { "content-type": "application/json" });
      },
      guardOf(R.prepareTask),
    )
    .get(
      R.playbook.path,
      async ({ principal, query, request }) => {
        const resolutionId = strParam(query, "resolutionId", 100, true);
        const talent = strParam(query, "talent", 200);
        const include = oneOf(query, "include", ["detectors"] as const);
        noteTrace(request, {
          resolutionId,
          detail: talent || include ? { ...(talent ? { talent } : {}), ...(include ? { include } : {}) } : undefined,
        });
        const voice = voiceOf(request, principal.scopes);
        return forChannel(
          request,
          await playbook(deps.database, principal.projectId, resolutionId, talent, {
            detectors: include === "detectors",
            voice,
            note: (meta) => noteMcpMeta(request, meta),
          }),
        );
      },
      guardOf(R.playbook),
    )
    .post(
      R.reports.path,
      async ({ principal, body, request, set }) => {
        const b = asObject(body);
        if (typeof b.resolutionId === "string") noteTrace(request, { resolutionId: b.resolutionId });
        const signing = { signer: deps.signer, iss: deps.config.baseUrl };
        const r = await recordReport(deps.database, principal.projectId, author(principal, request), b, signing);
        noteTrace(request, { detail: { submissionId: r.body.submissionId, replayed: r.body.replayed, summary: r.body.summary } });
        set.status = r.status;
        return forChannel(request, r.body);
      },
      guardOf(R.reports),
    );
}

/** Deepen: search and read, one scope. */
function deepenRoutes(deps: Deps, guards: Guards) {
  const src = () => source(deps);
  return new Elysia()
    .use(guards)
    .onAfterResponse(keyApiTracer(deps.journal, KEY_API_TRACE_KINDS))
    .get(
      R.search.path,
      async ({ principal, query }) => {
        return search(src(), project(principal), {
          query: strParam(query, "query", 200, true),
          k: intParam(query, "k", 1, SEARCH_K_MAX),
          scope: oneOf(query, "scope", SEARCH_SCOPES),
          resolutionId: strParam(query, "resolutionId", 100),
        });
      },
      guardOf(R.search),
    )
    .post(
      R.read.path,
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
        const uris = readUris(b);
        if (b.section !== undefined && (typeof b.section !== "string" || b.section.trim() === "" || b.section.length > 200)) {
          throw validationFailed([{ path: "section", message: "must be a heading text of at most 200 characters" }]);
        }
        const section = b.section as string | undefined;
        const maxTokens = intParam(b, "maxTokens", 1, 1_000_000);
        return capReads(await readFiles(src(), project(principal), { uris, resolutionId, section, previews: true }), maxTokens);
      },
      guardOf(R.read),
    );
}

/** Doctor, discovery, install (installs or disables). */
function selectionRoutes(deps: Deps, guards: Guards) {
  const src = () => source(deps);
  // the role the guard read on this very call (keys and tokens act for their member)
  const isOrgAdmin = (p: KeyPrincipal) => p.role === "owner" || p.role === "admin";
  return new Elysia()
    .use(guards)
    .onAfterResponse(keyApiTracer(deps.journal, KEY_API_TRACE_KINDS))
    .get(
      R.doctor.path,
      async ({ principal, query, request }) => {
        const include = oneOf(query, "include", ["selection"] as const);
        const voice = voiceOf(request, principal.scopes);
        const found = await doctor(src(), project(principal), { admin: isOrgAdmin(principal), selection: include === "selection", voice });
        // the service's own state beside the selection's: a full disk refuses the writes an agent is about to make
        return { ...found, service: deps.database.storage.check() };
      },
      guardOf(R.doctor),
    )
    .get(
      R.discovery.path,
      async ({ principal, query, request }) => {
        const languages = readLanguages(strParam(query, "languages", 1000));
        const offset = intParam(query, "offset", 0, 1_000_000, 0);
        const [rows, active, expertises, relevance] = await Promise.all([
          listInstalled(deps.database, principal.projectId),
          activeItems(src(), project(principal)),
          listServableExpertises(deps.database, principal.organizationId, deps.state.catalog!),
          relevanceOf(deps.database, deps.state.catalog!, principal.projectId),
        ]);
        // the codebase's languages, when the agent gives them, rank before the project's settings do
        const ranking = languages ? { ...relevance.settings, languages } : relevance.settings;
        const voice = voiceOf(request, principal.scopes);
        return discoveryPlaybook({ catalog: deps.state.catalog!, rows, active, expertises, relevance: ranking, offset, voice });
      },
      guardOf(R.discovery),
    )
    .patch(
      R.install.path,
      async ({ principal, params, body, request }) => {
        const { id } = params as { id: string };
        if (id !== "current" && id !== principal.projectId) throw notFound("No such project for this key.");
        const b = asObject(body);
        const list = readInstallIds(b);
        if (b.enabled !== undefined && typeof b.enabled !== "boolean")
          throw validationFailed([{ path: "enabled", message: "must be false (to disable) or true" }]);
        if (b.enabled === false) {
          const change = await deps.database.write((tx) =>
            disableTalents(tx, principal.projectId, list, { organizationId: principal.organizationId, actor: keyActor(principal) }),
          );
          noteTrace(request, { left: change.left });
          return { disabled: change.left, unchanged: change.unchanged };
        }
        // the named ids with their requires-closure, one atomic group (src/resolution/install.ts)
        const by = `${principal.kind}:${principal.id}`;
        const r = await installWithPrerequisites(src(), principal.organizationId, principal.projectId, list, by, keyActor(principal));
        noteTrace(request, { entered: r.change.entered });
        return { installed: r.installed, prerequisites: r.prerequisites, alreadyInstalled: r.alreadyInstalled };
      },
      guardOf(R.install),
    );
}

/** The key API of the agent loop, as one plugin. */
export function resolutionRoutes(deps: Deps, guards: Guards): Elysia {
  return new Elysia().use(loopRoutes(deps, guards)).use(deepenRoutes(deps, guards)).use(selectionRoutes(deps, guards)) as unknown as Elysia;
}
