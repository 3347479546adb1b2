/** Facts about the caller that routes pass down to services (never the whole Context). */
import { clientAddress, type TrustedProxies } from "../lib/proxies";
import { requestMetas, type PeerInfo, type RequestMeta } from "./requestMeta";

export type { PeerInfo } from "./requestMeta";

/**
 * The client address of a request: the socket's peer, or for a peer in TRUSTED_PROXIES the
 * address it forwarded (proxies.ts). Only `addressOf` calls it, so limits, logs and security
 * events all see the same client. Asking the socket costs ~2–3 µs (a tenth of `/healthz`), hence
 * once per request at most and only when something needs the answer.
 */
function lookUpClientAddress(request: Request, server: PeerInfo | null | undefined, trusted: TrustedProxies): string | null {
  let peer: string | null = null;
  try {
    peer = server?.requestIP?.(request)?.address ?? null;
  } catch {
    peer = null;
  }
  return clientAddress(peer, request.headers.get("x-forwarded-for"), trusted);
}

/**
 * The client address of a request the edge has seen, looked up on first need and remembered:
 * by a limit (connectionCap.ts, the auth limiters), the access log or a security event. Ask
 * before the response is sent: afterwards the socket no longer tells (null).
 */
export function addressOf(m: RequestMeta): string | null {
  if (m.ip === undefined) m.ip = lookUpClientAddress(m.request, m.peer, m.trusted);
  return m.ip;
}

/** The client address of a request (null without a socket or before the edge). */
export function clientAddressOf(request: Request): string | null {
  const m = requestMetas.get(request);
  return m ? addressOf(m) : null;
}

/**
 * IP and User-Agent of a request. The IP is the edge's client address (addressOf); `server`
 * is accepted for the routes' convenience and not read: nothing but `addressOf` asks the
 * socket, so a forwarded address cannot be missed by one caller.
 */
export function clientMeta(request: Request, server?: PeerInfo | null): { ip: string | null; userAgent: string | null } {
  void server;
  return { ip: clientAddressOf(request), userAgent: request.headers.get("user-agent") };
}
