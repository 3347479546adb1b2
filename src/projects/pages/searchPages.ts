/**
 * The places the command palette can go besides records (search.tsx): a project's tabs (the
 * current project's first — the page the palette was opened on, htmx's `HX-Current-URL` —, then
 * each other project's), the organization's pages (each only to the roles that may open it), and
 * the platform administration pages (platform administrators only). Listed only for a query.
 */
import { places } from "../../ui/places";

/** A place the palette lists: a label, what it belongs to, where it goes. */
export interface PageItem {
  type: "page";
  id: string;
  label: string;
  detail: string;
  href: string;
}

const PROJECT_TABS = [
  { tab: "overview", label: "Overview" },
  { tab: "activity", label: "Activity" },
  { tab: "keys", label: "Keys" },
  { tab: "settings", label: "Settings" },
] as const;

/** Most tabs of one kind listed (the current project's and then others'). */
const MAX_TABS = 6;

/** The project the palette was opened on (`/projects/<id>…` in htmx's `HX-Current-URL`), or null. */
export function currentProjectId(request: Request): string | null {
  const url = request.headers.get("hx-current-url");
  if (!url) return null;
  try {
    return /^\/projects\/([^/?#]+)/.exec(new URL(url).pathname)?.[1] ?? null;
  } catch {
    return null;
  }
}

/** What the palette lists of pages for `q` (lower-cased, not empty). */
export function pageItems(
  q: string,
  ctx: {
    projects: readonly { id: string; name: string }[];
    currentProject: string | null;
    org: { name: string; admin: boolean } | null;
    platformAdmin: boolean;
  },
): PageItem[] {
  if (q === "") return [];
  const hit = (...xs: string[]) => xs.some((x) => x.toLowerCase().includes(q));
  const items: PageItem[] = [];
  const projects = [...ctx.projects].sort((a, b) => Number(b.id === ctx.currentProject) - Number(a.id === ctx.currentProject));
  for (const t of PROJECT_TABS.filter((t) => hit(t.label))) {
    for (const p of projects.slice(0, MAX_TABS)) {
      items.push({
        type: "page",
        id: `${p.id}:${t.tab}`,
        label: t.label,
        detail: `tab of ${p.name}${p.id === ctx.currentProject ? " (this project)" : ""}`,
        href: `/projects/${p.id}${t.tab === "overview" ? "" : `?tab=${t.tab}`}`,
      });
    }
  }
  if (ctx.org) {
    for (const p of places.org.filter((p) => (!p.admin || ctx.org!.admin) && hit(p.label, p.also ?? ""))) {
      items.push({ type: "page", id: p.href, label: p.label, detail: `page of ${ctx.org.name}`, href: p.href });
    }
  }
  if (ctx.platformAdmin) {
    for (const p of places.admin.filter((p) => hit(p.label, "administration"))) {
      items.push({ type: "page", id: p.href, label: p.label, detail: "platform administration", href: p.href });
    }
  }
  return items;
}
