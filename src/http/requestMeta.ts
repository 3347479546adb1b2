/**
 * What the edge (edge.ts) knows of each request it has seen, kept in one WeakMap that the client
 * address (client.ts) and the cap on requests in progress (connectionCap.ts) read too.
 */
import type { TrustedProxies } from "../lib/proxies";

/** Minimal view of Bun's server that can tell a request's peer address. */
export interface PeerInfo {
  requestIP?(request: Request): { address: string } | null;
}

export interface RequestMeta {
  id: string;
  start: number;
  /** Wall-clock time the request arrived (ms since epoch). */
  startedAt: number;
  /** Arrival order in this process. */
  seq: number;
  /** Trace events numbered for it so far (edge.ts arrivalOf): the next event's number within the request. */
  events: number;
  /** Status of an error response rendered by onError (the access log reads it). */
  errorStatus?: number;
  /** Its error code (`unknown_talents`, …): the trace journal records it with a failed call. */
  errorCode?: string;
  /** The request (its client address is looked up from it, once, when first needed: client.ts). */
  request: Request;
  /** The server whose socket carries the request; null without one (app.handle). */
  peer: PeerInfo | null;
  /** TRUSTED_PROXIES, for the client address. */
  trusted: TrustedProxies;
  /** The client address once looked up (client.ts): null without a socket; undefined until asked. */
  ip?: string | null;
  /** True while the request counts as in progress (connectionCap.ts), until its response is sent. */
  inProgress?: boolean;
  /** Its entry among the requests in progress not yet attributed to an address (connectionCap.ts). */
  unattributed?: WeakRef<RequestMeta>;
  /** The address it counts against once the cap attributed it (null: none found); undefined until then. */
  countedAs?: string | null;
}

/** Every request the edge has seen, with what it knows of it. */
export const requestMetas = new WeakMap<Request, RequestMeta>();
