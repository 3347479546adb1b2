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
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/app.css" />
        <script src="/assets/htmx.min.js" defer></script>
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/">talentd</a>
          {props.user ? (
            <form class="signout" method="post" action="/logout">
              <span class="muted">{props.user.email}</span> <button type="submit" class="link">Sign out</button>
            </form>
          ) : null}
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

/**
 * The one header policy of every page the server renders (setup, sign-in, consent,
 * invitations, the dashboard): no framing (clickjacking), no caching of personal pages,
 * scripts and styles only from this server (air-gapped: no CDN), and a referrer kept to this
 * origin. `same-origin`, not `no-referrer`: with `no-referrer` Chromium sends `Origin: null`
 * on a same-origin form POST, and the cross-site check (http/csrf.ts) cannot tell it from an
 * opaque origin. No `form-action`: the consent form's answer redirects to the client.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
  "referrer-policy": "same-origin",
};

/** Renders a page to a text/html Response with the page header policy (plus `headers`, e.g. a cookie). */
export function page(node: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response("<!doctype html>" + String(node), { status, headers: { ...PAGE_HEADERS, ...headers } });
}
