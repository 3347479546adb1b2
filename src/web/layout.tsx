/** @jsxImportSource hono/jsx */
/** The page layout shared by the dashboard, the login, setup and consent pages (hono/jsx). */
import type { Child } from "hono/jsx";

export function Layout(props: { title: string; children?: Child; user?: { email: string } | null }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title} · talentd</title>
        <link rel="stylesheet" href="/assets/app.css" />
        <script src="/assets/htmx.min.js" defer></script>
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/">talentd</a>
          <span class="muted">{props.user ? props.user.email : ""}</span>
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

/** Renders a page to a text/html Response. */
export function page(node: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response("<!doctype html>" + String(node), {
    status,
    headers: { "content-type": "text/html; charset=utf-8", ...headers },
  });
}

/**
 * Headers of pages that act on a person's session (sign-in, consent, invitations): no framing
 * (clickjacking), no caching, no referrer leaking the request's parameters.
 */
export const SENSITIVE_PAGE_HEADERS: Record<string, string> = {
  "x-frame-options": "DENY",
  "content-security-policy": "frame-ancestors 'none'",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
};
