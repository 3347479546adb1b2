/** Facts about the caller that routes pass down to services (never the whole Context). */
import { clientAddress, type TrustedProxies } from "../lib/proxies";

/** Minimal view of Bun's server that can tell a request's peer address. */
export interface PeerInfo {
  requestIP?(request: Request): { address: string } | null;
}

/** The client address of each request the edge has seen (null: no socket, as under app.handle). */
const addresses = new WeakMap<Request, string | null>();

/**
 * Finds and remembers the client address of a request: the socket's peer, or for a peer in
 * TRUSTED_PROXIES the address it forwarded (proxies.ts). The edge calls it once per request;
 * this is the one place that reads the socket's address, so limits, logs and security events
 * all see the same client.
 */
export function recordClientAddress(request: Request, server: PeerInfo | null | undefined, trusted: TrustedProxies): string | null {
  let peer: string | null = null;
  try {
    peer = server?.requestIP?.(request)?.address ?? null;
  } catch {
    peer = null;
  }
  const ip = clientAddress(peer, request.headers.get("x-forwarded-for"), trusted);
  addresses.set(request, ip);
  return ip;
}

/** The client address the edge found for a request (null without a socket or before the edge). */
export function clientAddressOf(request: Request): string | null {
  return addresses.get(request) ?? null;
}

/**
 * IP and User-Agent of a request. The IP is the edge's client address (recordClientAddress);
 * `server` is accepted for the routes' convenience and not read: nothing but the edge asks
 * the socket, so a forwarded address cannot be missed by one caller.
 */
export function clientMeta(request: Request, server?: PeerInfo | null): { ip: string | null; userAgent: string | null } {
  void server;
  return { ip: clientAddressOf(request), userAgent: request.headers.get("user-agent") };
}
