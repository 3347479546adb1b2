/**
 * What `talentd serve` says about where it listens: the URL to open, the one line when the
 * socket cannot be had, and the notice that agents elsewhere need BASE_URL. Pure functions,
 * so the exact lines are tested without a server.
 */
import type { Config } from "../config";

/** True for an address only this machine can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1" || /^127\.\d+\.\d+\.\d+$/.test(h) || h.startsWith("::ffff:127.");
}

/** True for the wildcard addresses (every interface), where a browser on this machine uses localhost. */
function isWildcard(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return h === "0.0.0.0" || h === "::" || h === "";
}

/** The URL a person on this machine opens for a server on `host`:`port` (IPv6 in brackets). */
export function localUrl(host: string, port: number): string {
  const h = isWildcard(host) ? "localhost" : host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

/**
 * The one line for a listen that failed, or null for an error that is not about the socket.
 * Why: Bun's "Failed to start server. Is port 8787 in use?" names neither the address nor the
 * way out, and a stack trace is no answer to a busy port.
 */
export function listenFailure(error: unknown, host: string, port: number): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case "EADDRINUSE":
      return `port ${port} on ${host} is already in use (another talentd?); stop it or pass --port`;
    case "EACCES":
      return `port ${port} on ${host}: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE); pass --port`;
    case "EADDRNOTAVAIL":
      return `cannot listen on ${host}: not an address of this machine; pass --host (0.0.0.0 for every interface)`;
    case "EINVAL":
    case "ENOTFOUND":
      return `cannot listen on ${host} port ${port}: not a usable address; pass --host`;
    default:
      return null;
  }
}

/**
 * The start log's notice when BASE_URL was not given and the server is reachable from other
 * machines: every link, OAuth redirect and MCP URL it hands out says localhost, which only
 * works for agents on this machine. Null when BASE_URL was given or the address is loopback.
 */
export function publicUrlNotice(config: Pick<Config, "baseUrl" | "baseUrlFromDefault" | "host">, port: number): string | null {
  if (!config.baseUrlFromDefault || isLoopback(config.host)) return null;
  return (
    `agents must use ${config.baseUrl} (BASE_URL is not set); for agents on other machines ` +
    `restart with BASE_URL=http://<this machine's name or address>:${port}`
  );
}
