/**
 * The trace hook of the key API: after each call that got past authentication, or was refused
 * to a key the project knows (revoked, expired, lacking the route's scope), one journal
 * event with the route's kind, the author (key or token), the development tool, the final
 * status and duration, and what the handler noted (resolutionId, talents entered/left).
 */
import { principalOf } from "../auth/guards";
import { refusedKeyOf } from "../auth/key";
import { elapsedMs, arrivalOf, errorCodeOf, statusOf } from "../http/edge";
import type { TracedRoute } from "../http/keyRoute";
import type { TraceJournal } from "./journal";

export interface TraceNote {
  resolutionId?: string | null;
  entered?: string[];
  left?: string[];
  detail?: Record<string, unknown>;
}

const notes = new WeakMap<Request, TraceNote>();

/** Lets a handler add facts to the trace of its request. */
export function noteTrace(request: Request, note: TraceNote): void {
  notes.set(request, { ...notes.get(request), ...note });
}

/** The calling tool: the MCP adapter's `x-talentd-client`, else the User-Agent. */
export function clientOf(request: Request): string | null {
  return request.headers.get("x-talentd-client") ?? request.headers.get("user-agent");
}

/** What a run id may be: a UUID, or any short token of letters, digits, `-` and `_`. */
const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The client's run id (`X-Talentd-Run`: one per `talentd check`, hook or CI run), or null when absent or malformed. */
export function runOf(request: Request): string | null {
  const run = request.headers.get("x-talentd-run");
  return run !== null && RUN_ID.test(run) ? run : null;
}

/** `mcp` when the MCP adapter made the call (its `x-talentd-via` label), else `api`. */
export function viaOf(request: Request): "api" | "mcp" {
  return request.headers.get("x-talentd-via") === "mcp" ? "mcp" : "api";
}

/** An onAfterResponse handler recording key-API calls; `kinds` maps "METHOD route" to its trace kind and required scope. */
export function keyApiTracer(journal: TraceJournal, kinds: Record<string, TracedRoute>) {
  return (ctx: { request: Request; route: string; set: { status?: number | string }; responseValue: unknown }): void => {
    // a call refused to a key of the project (revoked, expired, lacking the scope) is traced too: a failed call
    const principal = principalOf(ctx.request) ?? refusedKeyOf(ctx.request);
    if (!principal) return;
    const route = kinds[`${ctx.request.method} ${ctx.route}`];
    if (!route) return;
    const note = notes.get(ctx.request) ?? {};
    // a failed call names its error code (insights: failed calls by code)
    const error = errorCodeOf(ctx.request);
    const detail = error ? { ...note.detail, error } : (note.detail ?? null);
    journal.record({
      projectId: principal.projectId,
      kind: route.kind,
      scope: route.scope,
      via: viaOf(ctx.request),
      authorType: principal.kind,
      authorId: principal.id,
      authorName: principal.name,
      client: clientOf(ctx.request),
      runId: runOf(ctx.request),
      talentsEntered: note.entered,
      talentsLeft: note.left,
      resolutionId: note.resolutionId ?? null,
      status: statusOf(ctx.request, ctx.set, ctx.responseValue),
      durationMs: elapsedMs(ctx.request),
      detail,
      arrival: arrivalOf(ctx.request),
    });
  };
}
