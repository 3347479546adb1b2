/**
 * The activity journal: one trace event per call of the key API, MCP and the selection's web
 * routes (docs/api.md "Trace events"). Events are batched and written at most 250 ms after
 * the call (docs/design.md "Writes"), in one transaction per batch; reads flush first, so a reader always sees
 * every call that completed before it.
 */
import { keptUnbounded } from "../lib/kept";
import { touchResolution } from "./dayMemo";
import { countsServed, servedStatement } from "./clientDays";
import type { Database } from "../db/client";
import type { Statement } from "../db/writeJob";
import type { KeyScope } from "../db/schema";
import { traceEvents } from "../db/schema";
import { orderedSubId } from "../lib/ids";
import type { Logger } from "../lib/log";
import { storageFailureOf } from "../db/storage";
import { filterSql, type TraceFilter } from "./traceFilter";
import type { CoreDeps } from "../deps";
import type { Dialect } from "../db/sqlDialect";

/** CoreDeps with the activity journal: what a traced route receives. */
export interface JournalDeps extends CoreDeps {
  journal: TraceJournal;
}

export interface TraceInput {
  projectId: string;
  /** What was done: prepare_task, designable, validate, record_validation, search, read, doctor, catalog, discover, install, … */
  kind: string;
  via: "api" | "web" | "mcp";
  authorType: "key" | "user" | "token";
  authorId: string;
  authorName: string;
  /** The development tool: MCP clientInfo, or the User-Agent. */
  client: string | null;
  /** The scope the key route requires (its descriptor's), or null for a web route. */
  scope?: KeyScope | null;
  /** The client's run id (`X-Talentd-Run`), or null: the Activity tab groups a run's calls by it. */
  runId?: string | null;
  talentsEntered?: string[];
  talentsLeft?: string[];
  resolutionId?: string | null;
  status: number;
  durationMs: number;
  detail?: Record<string, unknown> | null;
  /**
   * When the call arrived (ms, arrival number: http/edge.ts arrivalOf) and the event's number
   * within the call (one per event, never shared: the id is made of the three); events are ordered by it.
   */
  arrival: { at: number; seq: number; n: number };
}

export const FLUSH_MS = 250;

/**
 * A trace event id: `trc_` + an ordered id (10 time characters, 11 arrival characters, 5 event-within-call characters,
 * Crockford base32).
 */
export const TRACE_ID = /^trc_[0-9A-HJKMNP-TV-Z]{26}$/;
const INSERT_SIZES = [50, 10, 1] as const;
const insertSql = keptUnbounded<string, string>("Trace INSERT texts by batch size", {
  clock: "none",
  bound: "one per size of INSERT_SIZES, plain or full, and dialect: six per database",
});
/**
 * The INSERT of `n` trace events of one author (one of INSERT_SIZES, so a handful of cached
 * statements). The author's seven columns (its run's id among them) are bound once as ?1–?7 and each event binds its ten
 * own (its route's scope among them), or six for a plain event (no talents entered or left, no resolution, no detail: most
 * calls), whose other four are written as literals. The writer binds an argument in about half a
 * microsecond, and 15 per event were two thirds of its work per event (docs/performance.md).
 */
function insertTraces(n: number, plain: boolean, dialect: Dialect): string {
  const key = `${dialect}${plain ? "p" : "f"}${n}`;
  let text = insertSql.get(key);
  if (!text) {
    const width = plain ? PLAIN_EVENT : PER_EVENT;
    const rows = Array.from({ length: n }, (_, i) => {
      const p = Array.from({ length: width }, (_, k) => `?${AUTHOR_COLUMNS + 1 + i * width + k}`);
      const [id, kind, entered, left, res, status, ms, detail, at, scope] = plain
        ? [p[0], p[1], "'[]'", "'[]'", "NULL", p[2], p[3], "NULL", p[4], p[5]]
        : p;
      // PostgreSQL types a VALUES list's parameters as text: the numbers are cast (SQLite's text is unchanged)
      const num = (x: string | undefined) => (dialect === "sqlite" ? x : `${x}::bigint`);
      if (i === 0 && dialect === "postgres")
        return `(${id}, ?1, ${kind}, ?2, ?3, ?4, ?5, ?6, ?7, ${entered}, ${left}, ${res}::text,
          ${num(status)}, ${num(ms)}, ${detail}::text, ${num(at)}, ${scope})`;
      return `(${id}, ?1, ${kind}, ?2, ?3, ?4, ?5, ?6, ?7, ${entered}, ${left}, ${res}, ${status}, ${ms}, ${detail}, ${at}, ${scope})`;
    });
    text = `INSERT INTO trace_events (id, project_id, kind, via, author_type, author_id, author_name, client, run_id,
  talents_entered, talents_left, resolution_id, status, duration_ms, detail, created_at, scope)
  SELECT * FROM (VALUES ${rows.join(", ")})${dialect === "sqlite" ? "" : " AS v"} WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = ?1)`;
    insertSql.set(key, text);
  }
  return text;
}
/** project_id, via, author_type, author_id, author_name, client, run_id: the same for every call of one author's run. */
const AUTHOR_COLUMNS = 7;
/** id, kind, talents_entered, talents_left, resolution_id, status, duration_ms, detail, created_at, scope. */
const PER_EVENT = 10;
/** A plain event's: id, kind, status, duration_ms, created_at, scope. */
const PLAIN_EVENT = 6;
type AuthorArgs = [
  projectId: string,
  via: string,
  authorType: string,
  authorId: string,
  authorName: string,
  client: string | null,
  runId: string | null,
];
type EventArgs = [
  id: string,
  kind: string,
  entered: string,
  left: string,
  resolutionId: string | null,
  status: number,
  durationMs: number,
  detail: string | null,
  createdAt: number,
  scope: string | null,
];
interface Queued {
  author: AuthorArgs;
  event: EventArgs;
}
const isPlain = (e: EventArgs) => e[2] === "[]" && e[3] === "[]" && e[4] === null && e[7] === null;
const plainArgs = (e: EventArgs) => [e[0], e[1], e[5], e[6], e[8], e[9]];
/**
 * A batch is written at once when it reaches this many events (else within FLUSH_MS). Tried at
 * 1,000 (docs/performance.md): the key route gained ~3%, but building and sending a 1,000-event job stalls
 * the request thread for milliseconds, and search's p99 at 10 connections went past 5 ms.
 */
const MAX_BATCH = 50;

export class TraceJournal {
  #pending: Queued[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #flushing: Promise<void> = Promise.resolve();

  constructor(
    readonly database: Database,
    readonly log: Logger,
  ) {}

  /** Queues one event; it is written within FLUSH_MS. */
  record(e: TraceInput): void {
    const { arrival } = e;
    if (e.resolutionId) touchResolution(e.resolutionId); // an audit or a report: that day's memoized facts are stale
    this.#pending.push({
      author: [e.projectId, e.via, e.authorType, e.authorId, e.authorName, e.client?.slice(0, 200) ?? null, e.runId ?? null],
      event: [
        `trc_${orderedSubId(arrival.at, arrival.seq, arrival.n)}`,
        e.kind,
        e.talentsEntered?.length ? JSON.stringify(e.talentsEntered) : "[]",
        e.talentsLeft?.length ? JSON.stringify(e.talentsLeft) : "[]",
        e.resolutionId ?? null,
        e.status,
        Math.round(e.durationMs),
        e.detail ? JSON.stringify(e.detail) : null,
        arrival.at,
        e.scope ?? null,
      ],
    });
    if (this.#pending.length >= MAX_BATCH) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes everything queued so far. Events of a project deleted meanwhile are dropped. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const batch = this.#pending;
    this.#pending = [];
    this.#flushing = this.#flushing.then(async () => {
      if (batch.length === 0) return;
      try {
        // a project deleted between the call and the flush: its journal is gone with it (the
        // insert keeps only rows whose project still exists, decided inside the transaction);
        // the events of one author go together, several per statement
        const byAuthor = new Map<string, { author: AuthorArgs; plain: EventArgs[]; full: EventArgs[] }>();
        for (const q of batch) {
          const key = q.author.join("\0");
          let group = byAuthor.get(key);
          if (!group) byAuthor.set(key, (group = { author: q.author, plain: [], full: [] }));
          (isPlain(q.event) ? group.plain : group.full).push(q.event);
        }
        const statements: Statement[] = [];
        const add = (author: AuthorArgs, events: EventArgs[], plain: boolean) => {
          let i = 0;
          for (const size of INSERT_SIZES) {
            for (; events.length - i >= size; i += size) {
              const chunk = events.slice(i, i + size);
              statements.push({
                sql: insertTraces(size, plain, this.database.dialect),
                args: [...author, ...(plain ? chunk.flatMap(plainArgs) : chunk.flat())],
              });
            }
          }
        };
        for (const { author, full } of byAuthor.values()) {
          // before the events: a validate event of this batch audits rows that exist (clientDays.ts)
          const served = servedStatement(
            author[5],
            full.filter((e) => countsServed(e[1], e[4], e[5])).map((e) => e[4]!),
            this.database.dialect,
          );
          if (served) statements.push(served);
        }
        for (const { author, plain, full } of byAuthor.values()) {
          add(author, plain, true);
          add(author, full, false);
        }
        await this.database.writeJob({ statements, durable: false }); // docs/design.md "Writes": batched, not a business write
      } catch (e) {
        // a full disk is told by the storage state, once per interval (src/db/storage.ts)
        if (!storageFailureOf(e)) this.log.error("trace events could not be written", { count: batch.length, error: String(e) });
      }
    });
    return this.#flushing;
  }

  /**
   * Writes every call that completed before this one: Elysia records finished calls in
   * setImmediate callbacks (onAfterResponse), so those already scheduled run first (FIFO),
   * then the queue is flushed. Every reader of the journal calls it first.
   */
  async settle(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    await this.flush();
  }

  /** A page of a project's events, newest first; `before` is the previous page's `nextBefore`; `filter` the Activity tab's. */
  async list(
    projectId: string,
    limit: number,
    before?: string,
    filter?: TraceFilter,
  ): Promise<{ events: TraceEvent[]; nextBefore: string | null }> {
    await this.settle();
    const f = filterSql(filter, this.database.dialect);
    const rows =
      f.sql === ""
        ? await this.database.all<TraceRow>(TRACE_PAGE_SQL, [projectId, before ?? "\uffff", limit])
        : await this.database.all<TraceRow>(TRACE_PAGE_SQL.replace(" ORDER BY", `${f.sql} ORDER BY`), [
            projectId,
            before ?? "\uffff",
            ...f.args,
            limit,
          ]);
    const events = rows.map(traceFromRow);
    return { events, nextBefore: events.length === limit ? events.at(-1)!.id : null };
  }
}

/**
 * A page of one project's events by keyset: ids are (arrival time, arrival number), so ordering
 * by id is ordering by call, and the index (project_id, id) serves the page by walking `limit`
 * entries back from `before` — never sorting or scanning the project's history.
 */
export const TRACE_PAGE_SQL = `SELECT id, project_id, kind, via, author_type, author_id, author_name, client, run_id, talents_entered,
  talents_left, resolution_id, status, duration_ms, detail, created_at, scope
FROM trace_events WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?`;

export type TraceEvent = typeof traceEvents.$inferSelect;

interface TraceRow {
  id: string;
  project_id: string;
  kind: string;
  via: TraceEvent["via"];
  author_type: TraceEvent["authorType"];
  author_id: string;
  author_name: string;
  client: string | null;
  run_id: string | null;
  scope: TraceEvent["scope"];
  talents_entered: string;
  talents_left: string;
  resolution_id: string | null;
  status: number;
  duration_ms: number;
  detail: string | null;
  created_at: number;
}

function traceFromRow(r: TraceRow): TraceEvent {
  return {
    id: r.id,
    projectId: r.project_id,
    kind: r.kind,
    via: r.via,
    authorType: r.author_type,
    authorId: r.author_id,
    authorName: r.author_name,
    client: r.client,
    runId: r.run_id,
    scope: r.scope,
    talentsEntered: JSON.parse(r.talents_entered) as string[],
    talentsLeft: JSON.parse(r.talents_left) as string[],
    resolutionId: r.resolution_id,
    status: Number(r.status),
    durationMs: Number(r.duration_ms),
    detail: r.detail === null ? null : (JSON.parse(r.detail) as Record<string, unknown>),
    createdAt: Number(r.created_at),
  };
}
