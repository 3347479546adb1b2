/** @jsxImportSource hono/jsx */
/** The page layout shared by the dashboard, the login, setup and consent pages (hono/jsx). */
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { HtmlMemo } from "./memo";
import { filledStatusSlot, STATUS_SLOT } from "./status";
import { places } from "./places";

export { DataTable, ScrollBox, type Column } from "./table";

/** What the header shows of the signed-in person's organizations (pages that have a session). */
export interface Nav {
  organizations: { id: string; name: string; status: string; role: string }[];
  activeOrganizationId: string | null;
  /** The page's path, to mark the current link and to return to after switching organization. */
  path: string;
  /** The person is a platform administrator (user role admin): the Administration link. */
  platformAdmin?: boolean;
}

/**
 * The main navigation: who sees which link. Projects and the organization's page for everyone
 * signed in (the organization's page is its status page while it is not approved); the
 * catalog once the active organization is approved; the organization's expertises, insights
 * and adoption to its owners and admins; Administration to platform administrators.
 */
export function navLinks(nav: Nav): { href: string; label: string }[] {
  const active = nav.organizations.find((o) => o.id === nav.activeOrganizationId) ?? null;
  const approved = active?.status === "approved";
  const orgAdmin = approved && (active.role === "owner" || active.role === "admin");
  return [
    { href: "/", label: "Projects" },
    ...(approved ? [{ href: "/catalog", label: "Catalog" }] : []),
    { href: "/org", label: "Organization" },
    ...(orgAdmin ? places.org.filter((p) => p.header).map(({ href, label }) => ({ href, label })) : []),
    ...(nav.platformAdmin ? [{ href: "/admin", label: "Administration" }] : []),
  ];
}

/** The link of `links` the path is under (the longest matching one), so one link is current. */
function currentLink(links: { href: string }[], path: string): string | null {
  let best: string | null = null;
  for (const l of links) {
    const under = path === l.href || (l.href !== "/" && path.startsWith(l.href + "/"));
    if (under && (!best || l.href.length > best.length)) best = l.href;
  }
  return best;
}

/**
 * The banner of an active organization that is not approved, on every page: what
 * it means and where its status is. Pending: nothing to do but wait for a platform
 * administrator; rejected or suspended: ask one.
 */
function ApprovalBanner(props: { nav?: Nav }) {
  const nav = props.nav;
  const active = nav?.organizations.find((o) => o.id === nav.activeOrganizationId);
  if (!active || active.status === "approved") return null;
  return (
    <div class="banner" role="status" id="approval-banner">
      <strong>
        {active.name} is {active.status === "pending" ? "pending approval" : active.status}.
      </strong>{" "}
      {active.status === "pending"
        ? "A platform administrator must approve it before its projects, catalog and settings can be used; nothing else is needed from you."
        : active.status === "rejected"
          ? "A platform administrator declined it: its projects cannot be used. Ask one if this is a mistake."
          : "Its projects cannot be used until a platform administrator reactivates it; ask one."}{" "}
      <a href="/org">See its status</a>
    </div>
  );
}

/** htmx swaps error answers (4xx, 5xx) too: they carry a fragment retargeted to #flash (ui/errors.tsx). */
const HTMX_CONFIG = JSON.stringify({
  responseHandling: [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "[45]..", swap: true, error: true },
  ],
});

function Header(props: { user?: { email: string } | null; nav?: Nav }) {
  const nav = props.nav;
  return (
    <header class="top">
      <a class="brand" href="/">
        talentd
      </a>
      {nav ? <Menu user={props.user} nav={nav} /> : <SignOut user={props.user} />}
    </header>
  );
}

/**
 * Everything of the header but the brand, in a <details> that is a "Menu" button under 1100 px
 * wide and always shown (its summary hidden) above: no script needed (public/app.css).
 */
function Menu(props: { user?: { email: string } | null; nav: Nav }) {
  const nav = props.nav;
  const links = navLinks(nav);
  const current = currentLink(links, nav.path);
  return (
    <details class="menu">
      <summary>Menu</summary>
      <div class="menu-body">
        <nav aria-label="Main">
          {links.map((l) => (
            <a href={l.href} aria-current={l.href === current ? "page" : undefined}>
              {l.label}
            </a>
          ))}
        </nav>
        {nav.organizations.length > 0 ? (
          <form class="org-switch" method="post" action="/web/orgs/active" hx-post="/web/orgs/active">
            <input type="hidden" name="return" value={nav.path} />
            <label for="org-switch" class="visually-hidden">
              Active organization
            </label>
            <select id="org-switch" name="organizationId">
              {nav.organizations.map((o) => (
                <option value={o.id} selected={o.id === nav.activeOrganizationId}>
                  {o.name}
                  {o.status === "approved" ? "" : ` (${o.status})`}
                </option>
              ))}
            </select>
            <button type="submit" class="secondary small">
              Switch
            </button>
          </form>
        ) : null}
        <button type="button" class="secondary small" id="palette-open" aria-haspopup="dialog" title="Search and jump (Ctrl+K)">
          Search <kbd>Ctrl K</kbd>
        </button>
        <SignOut user={props.user} />
      </div>
    </details>
  );
}

/** The signed-in person's address (a link to their account page) and the sign-out button. */
function SignOut(props: { user?: { email: string } | null }) {
  return props.user ? (
    <form class="signout" method="post" action="/logout">
      <a href="/account" class="muted" title="Your account">
        {props.user.email}
      </a>{" "}
      <button type="submit" class="link">
        Sign out
      </button>
    </form>
  ) : null;
}

/** The command palette: a dialog filled by GET /web/search (htmx), driven by the keyboard (public/app.js). */
function Palette() {
  return (
    <dialog id="palette" aria-label="Search projects, talents, specializations and organizations">
      <form method="dialog" class="palette-form" role="search">
        <label for="palette-q" class="visually-hidden">
          Search
        </label>
        <input
          id="palette-q"
          name="q"
          type="search"
          placeholder="Projects, talents, specializations, organizations…"
          autocomplete="off"
          aria-controls="palette-results"
          hx-get="/web/search"
          hx-trigger="input changed delay:150ms, focus once"
          hx-target="#palette-results"
        />
      </form>
      <ul id="palette-results" aria-label="Results" aria-live="polite"></ul>
    </dialog>
  );
}

/** Kept renders (ui/memo.ts): the header by everything it shows; the palette is the same on every page. */
const headers = new HtmlMemo(1024);
const PALETTE = raw(String(<Palette />));
/** The status line, empty: the answer of a page opened after a change writes its message in (ui/status.ts). */
const STATUS_LINE = raw(STATUS_SLOT);

/**
 * The page around `children`. `status`: what the change this page answers did, said in the
 * status line (a page that answers a form itself; otherwise the line is filled from the status cookie).
 */
export function Layout(props: { title: string; children?: Child; user?: { email: string } | null; nav?: Nav; status?: string | null }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content={HTMX_CONFIG} />
        <title>{props.title} · talentd</title>
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/app.css" />
        <script src="/assets/htmx.min.js" defer></script>
        <script src="/assets/app.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        {headers.render(JSON.stringify([props.user?.email ?? null, props.nav ?? null]), () => (
          <>
            <Header user={props.user} nav={props.nav} />
            <ApprovalBanner nav={props.nav} />
          </>
        ))}
        {props.status ? raw(filledStatusSlot(props.status)) : STATUS_LINE}
        <div id="flash" aria-live="polite"></div>
        <main id="main">{props.children}</main>
        {props.nav ? PALETTE : null}
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
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri " +
    "'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
  "referrer-policy": "same-origin",
};

/**
 * A card section titled by its heading (`aria-labelledby`), showing `empty` as a muted line when
 * there is nothing to show.
 */
export function Card(props: { id: string; title: string; empty?: string | false; children?: Child }) {
  return (
    <section class="card" id={props.id} aria-labelledby={`${props.id}-h`}>
      <h2 id={`${props.id}-h`}>{props.title}</h2>
      {props.empty ? <p class="muted">{props.empty}</p> : props.children}
    </section>
  );
}

/** Renders a page to a text/html Response with the page header policy (plus `headers`, e.g. a cookie). */
export function page(node: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(pageHtml(node), { status, headers: { ...PAGE_HEADERS, ...headers } });
}

/** A page's whole HTML, as `page` answers it (what `KeptPages` keeps). */
export const pageHtml = (node: unknown): string => "<!doctype html>" + String(node);

/** A kept page's bytes (ui/memo.ts `KeptPages`) as a 200 with the page header policy. */
export const pageOfBytes = (bytes: Blob): Response => new Response(bytes, { headers: PAGE_HEADERS });
