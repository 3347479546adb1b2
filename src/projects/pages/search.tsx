/** @jsxImportSource hono/jsx */
/**
 * `GET /web/search?q=` — the command palette's one search (docs/api.md "Pages"): the pages that
 * match by name first (project tabs, the organization's pages, administration: searchPages.ts),
 * then projects and specializations of the active organization, catalog entries (its published
 * expertises included), and the person's organizations (choosing one switches to it). JSON, or
 * the palette's list items when htmx asks.
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import type { Guards } from "../../auth/guards";
import { activeOrganization } from "../../auth/session";
import { catalogCards } from "../../catalog/people";
import { listServableExpertises } from "../../expertises/servable";
import { strParam } from "../../http/query";
import { isHtmx } from "../../http/negotiate";
import { routeGuard, routePattern } from "../../http/route";
import { CATALOG_WEB } from "../describeCatalog";
import { listProjects } from "../service";
import { listSpecializations } from "../../specializations/service";
import { listMemberships } from "../../tenancy/service";
import { currentProjectId, pageItems } from "./searchPages";

export interface SearchItem {
  type: "page" | "project" | "talent" | "specialization" | "organization";
  id: string;
  label: string;
  detail: string;
  /** Where choosing it goes (organizations: switched to first, then home). */
  href: string;
}

const PER_TYPE = 6;

export function searchRoutes(deps: CatalogDeps, guards: Guards) {
  return new Elysia().use(guards).get(
    routePattern(CATALOG_WEB.search),
    async ({ auth, query, request }) => {
      const q = (strParam(query, "q", 200) ?? "").trim().toLowerCase();
      const has = (...xs: string[]) => q === "" || xs.some((x) => x.toLowerCase().includes(q));
      const items: SearchItem[] = [];
      const [orgs, active] = await Promise.all([listMemberships(deps.database, auth.user.id), activeOrganization(deps.database, auth)]);
      if (active?.status === "approved") {
        const catalog = deps.state.catalog!;
        const [projects, specs, expertises] = await Promise.all([
          listProjects(deps.database, active.id),
          listSpecializations(deps.database, catalog, active.id),
          listServableExpertises(deps.database, active.id, catalog),
        ]);
        const org = { name: active.name, admin: active.role !== "member" };
        const current = currentProjectId(request);
        items.push(...pageItems(q, { projects, currentProject: current, org, platformAdmin: auth.user.role === "admin" }));
        for (const p of projects.filter((p) => has(p.name, p.description)).slice(0, PER_TYPE))
          items.push({ type: "project", id: p.id, label: p.name, detail: "project", href: `/projects/${p.id}` });
        const talents =
          q === "" ? [] : catalogCards({ catalog, expertises: expertises.map((e) => e.talent) }, { query: q }, PER_TYPE).talents;
        for (const t of talents)
          items.push({
            type: "talent",
            id: t.id,
            label: t.title,
            detail: t.id,
            href: `/catalog/${t.id.startsWith("@") ? encodeURIComponent(t.id) : t.id}`,
          });
        for (const s of specs.filter((s) => has(s.name, s.id)).slice(0, PER_TYPE))
          items.push({
            type: "specialization",
            id: s.id,
            label: s.name,
            detail: "specialization",
            href: `/catalog?specialization=${s.id}`,
          });
      } else {
        items.push(...pageItems(q, { projects: [], currentProject: null, org: null, platformAdmin: auth.user.role === "admin" }));
      }
      for (const o of orgs.filter((o) => o.id !== active?.id && has(o.name, o.slug)).slice(0, PER_TYPE))
        items.push({ type: "organization", id: o.id, label: o.name, detail: `switch organization (${o.status})`, href: "/" });
      if (!isHtmx(request)) return { items };
      const html = paletteItems(items);
      return new Response(html, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
    },
    routeGuard(CATALOG_WEB.search),
  );
}

/** The palette's list items (htmx): a link each, or the switch form of an organization. */
function paletteItems(items: SearchItem[]): string {
  return String(
    <>
      {items.length === 0 ? (
        <li class="muted" data-empty="true">
          Nothing found
        </li>
      ) : (
        items.map((it, i) => (
          <li id={`palette-item-${i}`} data-active={i === 0 ? "true" : "false"} data-type={it.type}>
            {it.type === "organization" ? (
              <form method="post" action="/web/orgs/active" hx-post="/web/orgs/active">
                <input type="hidden" name="organizationId" value={it.id} />
                <button type="submit" class="link">
                  {it.label}
                </button>{" "}
                <span class="muted small">{it.detail}</span>
              </form>
            ) : (
              <a href={it.href}>
                {it.label} <span class="muted small">{it.detail}</span>
              </a>
            )}
          </li>
        ))
      )}
    </>,
  );
}
