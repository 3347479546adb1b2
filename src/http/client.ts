/** Facts about the caller that routes pass down to services (never the whole Context). */

/** Minimal view of Bun's server that can tell a request's peer address. */
export interface PeerInfo {
  requestIP?(request: Request): { address: string } | null;
}

/** IP and User-Agent of a request (IP from the socket; null under app.handle). */
export function clientMeta(request: Request, server: PeerInfo | null | undefined): { ip: string | null; userAgent: string | null } {
  let ip: string | null = null;
  try {
    ip = server?.requestIP?.(request)?.address ?? null;
  } catch {
    ip = null;
  }
  return { ip, userAgent: request.headers.get("user-agent") };
}
