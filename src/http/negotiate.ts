/**
 * Who is asking, as far as the answer's form goes (docs/design.md "JSON by default, HTML when a browser asks"): htmx wants an HTML
 * fragment, a browser navigating (a link, a form posted without JavaScript) wants a page or a
 * redirect to one, and everything else (scripts, curl, agents) gets JSON.
 */

/** An htmx request: it swaps the answer into the page. */
export function isHtmx(request: Request): boolean {
  return request.headers.get("hx-request") === "true";
}

/**
 * A browser navigation: `Sec-Fetch-Mode: navigate` where the browser sends it (HTTPS and
 * loopback), else an Accept that asks for HTML first (what browsers send on navigations;
 * scripts and curl send `*\/*` or JSON).
 */
export function isNavigation(request: Request): boolean {
  if (isHtmx(request)) return false;
  const mode = request.headers.get("sec-fetch-mode");
  if (mode !== null) return mode === "navigate";
  const accept = request.headers.get("accept") ?? "";
  return /^\s*text\/html/.test(accept);
}

/** Paths whose answers are JSON whatever the caller (APIs, protocols, assets). */
export function isApiPath(pathname: string): boolean {
  return /^\/(api|mcp|oauth\/(token|register|revoke)|\.well-known|assets|healthz|readyz|openapi\.json)(\/|$)/.test(pathname);
}
