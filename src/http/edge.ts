/**
 * The HTTP edge shared by every route: request ids, the client address (client.ts), the
 * JSON-lines access log, the body size limit and deadline, the cap on requests in progress per
 * address, and the one onError that renders every failure in the error model (docs/design.md "One error model").
 */
import { Elysia } from "elysia";
import type { Logger } from "../lib/log";
import { ulid } from "../lib/ids";
import { payloadTooLarge, tooLargeResponse } from "./bodyLimit";
import { AppError, databaseUnavailable, errorResponse, validationFailed, type Issue } from "./errors";
import { STORAGE_RETRY_AFTER_S, storageFailureOf, storageMessage, type StorageHealth } from "../db/storage";
import { isNulInText, isUniqueViolation } from "../db/sqlErrors";
import { databaseUnreachable } from "../db/unavailable";
import { addressOf } from "./client";
import { connectionCap, type ConnectionCap } from "./connectionCap";
import { requestMetas, type PeerInfo, type RequestMeta } from "./requestMeta";
import { NO_TRUSTED_PROXIES, type TrustedProxies } from "../lib/proxies";
import { Deadlines, type Expiry } from "./deadline";
import { schemaIssues, type SchemaError } from "./schemaIssues";

const meta = requestMetas;
let arrivals = 0;

/** The request id of a request seen by the edge (for logs and traces). */
export function requestIdOf(request: Request): string {
  return meta.get(request)?.id ?? "unknown";
}

/** The status a request was answered with (error responses included), as the edge saw it. */
export function statusOf(request: Request, set: { status?: number | string }, responseValue: unknown): number {
  const m = meta.get(request);
  if (m?.errorStatus !== undefined) return m.errorStatus;
  if (responseValue instanceof Response) return responseValue.status;
  return typeof set.status === "number" ? set.status : Number(set.status ?? 200);
}

/** The error code a request was answered with (docs/design.md "One error model"), or undefined when it succeeded. */
export function errorCodeOf(request: Request): string | undefined {
  return meta.get(request)?.errorCode;
}

/**
 * When the request arrived (ms since epoch), its arrival number, and the number of this event
 * within the request: orders trace events by call. Each call hands out the request's next event
 * number (0, 1, …), so a route that journals several events (a policy save, one per project)
 * gives each its own id.
 */
export function arrivalOf(request: Request): { at: number; seq: number; n: number } {
  const m = meta.get(request);
  if (!m) return { at: Date.now(), seq: ++arrivals, n: 0 };
  const n = m.events++;
  return { at: m.startedAt, seq: m.seq, n };
}

/** Milliseconds since the edge saw the request. */
export function elapsedMs(request: Request): number {
  const m = meta.get(request);
  return m ? performance.now() - m.start : 0;
}

export interface EdgeOptions {
  log: Logger;
  bodyLimit: number;
  accessLog: boolean;
  /** TRUSTED_PROXIES: peers whose X-Forwarded-For names the client. Absent: none. */
  trustedProxies?: TrustedProxies;
  /** REQUEST_DEADLINE: the body must have arrived this long after the headers (else 408). Absent: 30 s. */
  requestDeadlineMs?: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: requests in progress per client address (beyond, 429). Absent: no cap. */
  maxConnectionsPerAddress?: number;
  /**
   * Renders an error as HTML when the request wants it (a page, an htmx swap), or returns
   * null for the JSON error model. Injected by createApp (src/ui/errors.tsx): the edge knows
   * no page. It may look up who is signed in (the page's header), hence a promise.
   */
  htmlError?: (error: AppError, request: Request, requestId: string) => Response | null | Promise<Response | null>;
  /** Request counters for /metrics; null when metrics are off (nothing is recorded then). */
  metrics?: { record(method: string, route: string | undefined, status: number, seconds: number): void } | null;
  /** The database's storage state: a write the disk refused is noted there (and logged there, once per interval), not here. */
  storage?: StorageHealth;
  /**
   * The listening server (Elysia's `app.server`), which tells a request's peer address; null
   * without a socket (`app.handle`). A getter handed in by createApp, because a hook that names
   * `server` in its context makes Elysia define that property on every request's context object
   * (`Object.defineProperty`), which slowed every route (docs/performance.md).
   */
  server?: () => PeerInfo | null | undefined;
  /** Told of each request once answered (the heavy reads' cap counts the other requests as contention). */
  answered?: (request: Request, route: string | undefined) => void;
}

/**
 * Turns Elysia's validation error into our issues list, from the schema validator's own errors:
 * the schema's `error` text, or a sentence naming the field and what it takes (schemaIssues.ts),
 * never TypeBox's default texts. One issue per field (TypeBox reports a missing field twice:
 * required, then of the wrong type). Never Elysia's summaries (`error.all`): they interpolate the
 * received value into a string, which throws for a value like `{"toString":1}` and once turned a
 * bad body into a 500. Never throws.
 */
function validationIssues(error: unknown): Issue[] {
  const issues: Issue[] = [];
  try {
    const e = error as {
      validator?: { Errors?(value: unknown): Iterable<SchemaError>; schema?: Record<string, unknown>; Schema?(): Record<string, unknown> };
      value?: unknown;
    };
    const schema = e.validator?.schema ?? e.validator?.Schema?.();
    const seen = new Set<string>();
    // a body that is not an object at all is told once, as its required fields (not also as an array's "properties")
    const notAnObject = typeof e.value !== "object" || e.value === null || Array.isArray(e.value);
    for (const x of e.validator?.Errors?.(e.value) ?? []) {
      const root = !x.path || x.path === "/";
      for (const issue of schemaIssues(x, schema)) {
        if (seen.has(issue.path)) continue;
        seen.add(issue.path);
        issues.push(issue);
      }
      if (issues.length >= 20 || (root && notAnObject)) break;
    }
  } catch {
    /* an unreadable error still answers 400 below */
  }
  return issues.length > 0 ? issues : [{ path: "", message: "the request does not have the fields this route takes" }];
}

/** A form-encoded body as Elysia parses one: a repeated key (checkboxes) becomes an array. */
function formFields(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    const had = out[k];
    out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return out;
}

/** Requests whose JSON body could not be parsed (they carry `{}` until the guard has run). */
const malformed = new WeakSet<Request>();

/** The 400 of a body that is not valid JSON (or form data). */
function notParsed(): AppError {
  return validationFailed([{ path: "", message: "the body is not valid JSON or form data" }], "The request body could not be parsed.");
}

/** Closes the connection after the answer: a client that is refused or too slow keeps no socket. */
const CLOSE = { connection: "close" } as const;

/**
 * Reads a body, refusing it with 413 once it passes `limit` bytes and with 408 when it has not
 * all arrived by the expiry (REQUEST_DEADLINE): a body sent a byte at a time holds no connection
 * longer than that. A body with a length (checked in onRequest) is read whole; a chunked one by
 * chunks, counting. The 408 closes the connection, so the rest of a late body is never read.
 */
async function readLimited(request: Request, limit: number, expiry: Expiry): Promise<Uint8Array<ArrayBuffer>> {
  try {
    if (request.headers.has("content-length")) return new Uint8Array(await Promise.race([request.arrayBuffer(), expiry.expired]));
    const reader = request.body!.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await Promise.race([reader.read(), expiry.expired]);
        if (done) break;
        size += value.byteLength;
        if (size > limit) throw payloadTooLarge(limit);
        chunks.push(value);
      }
    } catch (e) {
      reader.cancel().catch(() => {});
      throw e;
    }
    return Buffer.concat(chunks);
  } finally {
    expiry.done();
  }
}

/** The 408 of a body that did not arrive by REQUEST_DEADLINE (the connection closes). */
function tooLate(deadlineMs: number): AppError {
  return new AppError(
    "request_timeout",
    `The request body did not arrive within ${deadlineMs / 1000} s.`,
    { deadlineSeconds: deadlineMs / 1000 },
    CLOSE,
  );
}

/** 507 storage_full with Retry-After: the disk is full or failing (src/db/storage.ts). */
export function storageFull(kind: "full" | "io_error"): AppError {
  return new AppError(
    "storage_full",
    storageMessage(kind),
    { storage: kind, retryAfter: STORAGE_RETRY_AFTER_S },
    { "retry-after": String(STORAGE_RETRY_AFTER_S) },
  );
}

/** Maps any error to the AppError the client is told (Elysia's codes, the unexpected). */
function toAppError(code: unknown, error: unknown, request: Request, log: Logger, storage?: StorageHealth): AppError {
  const id = requestIdOf(request);
  if (error instanceof AppError) return error;
  // Elysia wraps what a parser throws in a ParseError; ours carries the real cause.
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof AppError) return cause;
  switch (code) {
    case "VALIDATION":
      // the stand-in {} of a malformed JSON body failed the route's schema: say what really failed
      return malformed.has(request) ? notParsed() : validationFailed(validationIssues(error));
    case "PARSE":
      return notParsed();
    case "NOT_FOUND":
      return new AppError("not_found", "No such route.");
    default: {
      const status = (error as { status?: number }).status;
      if (status === 413) return new AppError("payload_too_large");
      if (isUniqueViolation(error)) return new AppError("conflict", "That already exists (it was created meanwhile).");
      if (isNulInText(error)) return validationFailed([{ path: "", message: "must not hold a NUL character (U+0000)" }]);
      // a full or failing disk is a state, told once per interval by the storage state: no stack per request
      const full = storage ? storage.failed(error) : storageFailureOf(error);
      if (full) return storageFull(full);
      if (databaseUnreachable(error)) {
        // a state of the server, not a bug: one warning line, no stack
        log.warn("the database cannot be reached: answered 503", { requestId: id, error: String(error) });
        return databaseUnavailable();
      }
      log.error("unhandled error", { requestId: id, error: String((error as Error)?.stack ?? error) });
      return new AppError("internal_error", `Something went wrong on our side (request ${id}).`, { requestId: id });
    }
  }
}

/** The body parser of every route: size limit, deadline, JSON parsed here (see notParsed), forms as Elysia parses them. */
function bodyParser(bodyLimit: number, deadlineMs: number) {
  const deadlines = new Deadlines();
  return async ({ request, contentType }: { request: Request; contentType?: string }): Promise<unknown> => {
    if (!request.body) return;
    const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
    // every body is read here, with the size limit (a chunked one has no length to check in
    // onRequest) and the deadline; JSON is parsed here so that a malformed body is told only
    // after the route's guard has authenticated the caller (see notParsed)
    const deadline = (meta.get(request)?.start ?? performance.now()) + deadlineMs;
    const bytes = await readLimited(
      request,
      bodyLimit,
      deadlines.expiry(deadline, () => tooLate(deadlineMs)),
    );
    if (type === "multipart/form-data") {
      // Elysia's own multipart parser runs, reading the bytes read here: a chunked form (curl,
      // a CLI) parses exactly as one with a length (a browser's)
      const form = new Response(bytes, { headers: { "content-type": request.headers.get("content-type") ?? type } });
      Object.defineProperty(request, "formData", { value: () => form.formData(), configurable: true });
      return;
    }
    const text = new TextDecoder().decode(bytes);
    if (type === "application/json") {
      try {
        return text.trim() === "" ? {} : JSON.parse(text);
      } catch {
        malformed.add(request);
        return {};
      }
    }
    if (type === "application/x-www-form-urlencoded") return formFields(text);
    return text;
  };
}

/** The one onError: every failure rendered in the error model (HTML when the request wants it); never fails itself. */
function errorRenderer(opts: EdgeOptions) {
  return async ({ code, error, request }: { code: unknown; error: unknown; request: Request }): Promise<Response> => {
    let err: AppError;
    let res: Response;
    try {
      err = toAppError(code, error, request, opts.log, opts.storage);
      res = (await opts.htmlError?.(err, request, requestIdOf(request))) ?? errorResponse(err, requestIdOf(request));
    } catch (e) {
      // the error model never fails: a failure to render one is itself a 500 in the model (never the runtime's page)
      opts.log.error("could not render an error", { requestId: requestIdOf(request), error: String((e as Error)?.stack ?? e) });
      err = new AppError("internal_error", `Something went wrong on our side (request ${requestIdOf(request)}).`, {
        requestId: requestIdOf(request),
      });
      res = errorResponse(err, requestIdOf(request));
    }
    const m = meta.get(request);
    if (m) {
      m.errorStatus = res.status;
      m.errorCode = err.code;
    }
    return res;
  };
}

/**
 * Sees each request first: its id, its meta, the cap on requests in progress, the body limit by
 * Content-Length. The client address is looked up here only for the access log (after the
 * response the socket no longer tells); otherwise on first need (client.ts addressOf).
 */
function requestOpener(opts: EdgeOptions, cap: ConnectionCap | null) {
  const trusted = opts.trustedProxies ?? NO_TRUSTED_PROXIES;
  const serverOf = opts.server ?? (() => null);
  return ({ request, set }: { request: Request; set: { headers: Record<string, unknown> } }) => {
    const seen = meta.get(request);
    if (seen) {
      // handed to the app again by the method override (methodOverride.ts): the same request, its id kept
      set.headers["x-request-id"] = seen.id;
      return;
    }
    const incoming = request.headers.get("x-request-id");
    const id = incoming && /^[A-Za-z0-9._-]{1,64}$/.test(incoming) ? incoming : ulid();
    const peer = serverOf() ?? null;
    const m: RequestMeta = { id, start: performance.now(), startedAt: Date.now(), seq: ++arrivals, events: 0, request, peer, trusted };
    meta.set(request, m);
    set.headers["x-request-id"] = id;
    if (opts.accessLog) addressOf(m);
    const refused = cap?.enter(m);
    if (refused) return refused;
    const len = request.headers.get("content-length");
    if (len !== null && Number(len) > opts.bodyLimit) return tooLargeResponse(request, opts.bodyLimit, id);
  };
}

/** After each response: the cap's count, the metrics, the access log line. */
function responseCloser(opts: EdgeOptions, cap: ConnectionCap | null) {
  const metrics = opts.metrics ?? null;
  return ({
    request,
    set,
    responseValue,
    route,
  }: {
    request: Request;
    set: { status?: number | string };
    responseValue: unknown;
    route?: string;
  }) => {
    const m = meta.get(request);
    cap?.leave(m);
    opts.answered?.(request, route);
    if (metrics) metrics.record(request.method, route, statusOf(request, set, responseValue), elapsedMs(request) / 1000);
    if (!opts.accessLog) return;
    const url = new URL(request.url);
    const status = statusOf(request, set, responseValue);
    opts.log.info("request", {
      requestId: requestIdOf(request),
      method: request.method,
      path: url.pathname,
      status,
      ms: Math.round(elapsedMs(request) * 10) / 10,
      ip: m?.ip ?? undefined,
      ua: request.headers.get("user-agent") ?? undefined,
    });
  };
}

/** The edge plugin; apply it first in createApp so its hooks are global. */
export function edge(opts: EdgeOptions) {
  // the cap is counted only when set: without it no request pays for counting
  const max = opts.maxConnectionsPerAddress;
  const cap = max !== undefined && Number.isFinite(max) ? connectionCap(max) : null;
  return (
    new Elysia({ name: "edge" })
      .onRequest(requestOpener(opts, cap))
      .onParse({ as: "global" }, bodyParser(opts.bodyLimit, opts.requestDeadlineMs ?? 30_000))
      // after the guards (transform) and validation, before the handler: a malformed JSON body is a
      // 400 only for a caller the route accepts (an unauthenticated one got its 401 first)
      .onBeforeHandle({ as: "global" }, ({ request, params }) => {
        if (malformed.has(request)) throw notParsed();
        // Elysia hands a path parameter it cannot percent-decode (%E0%A4%A) to the handler as null
        for (const [name, v] of Object.entries((params ?? {}) as Record<string, unknown>)) {
          if (typeof v !== "string") throw validationFailed([{ path: name, message: "is not valid percent-encoding" }]);
        }
      })
      .onError({ as: "global" }, errorRenderer(opts))
      .onAfterResponse({ as: "global" }, responseCloser(opts, cap))
  );
}
