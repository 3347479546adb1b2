/** @jsxImportSource hono/jsx */
/**
 * The HTML views of the expertise routes, kept beside their routes (docs/architecture.md): the
 * list and creation form (list.tsx), the editor with its merge view and the validator's
 * issues by line (editor.tsx), triggers, lifecycle, versions and deletion
 * (lifecycle.tsx). The page (src/expertises/pages.tsx) composes them; after a change
 * through htmx or a plain form the route sends the browser back to the page (registerExpertiseViews).
 */
import type { ViewContext, ViewRegistry } from "../../ui/views";
import { EXPERTISES_PAGE, pageOf, ROUTE } from "./list";
import { TriggerProposalView } from "./lifecycle";
import type { TriggerProposal } from "../triggers";

/** What each change the page comes back after (`?done=`, kept in the address for bookmarks and tests) did, for the status line. */
export const EXPERTISE_DONE: Record<string, string> = {
  created: "Draft created.",
  saved: "Saved.",
  version: "Saved as a new draft version: the published version stays served until you publish this one.",
  triggers: "Triggers confirmed.",
  publish: "Published (not served yet: activate it to serve it).",
  served: "Published and served: projects that install it get this version.",
  activate: "Activated: its latest version is served.",
  deactivate: "Deactivated: no longer served.",
  reactivate: "Reactivated: its latest version is served again.",
  deleted: "Expertise deleted.",
};

/**
 * The route views of the expertise routes: every change sends the browser back to the page, and
 * the layout's status line says what it did (carried by the status cookie, never read from the address).
 */
export function registerExpertiseViews(views: ViewRegistry): void {
  const registerView = (method: string, route: string, view: { redirect: (d: unknown, ctx: ViewContext) => string }) =>
    views.register(method, route, {
      ...view,
      status: (d, ctx) => EXPERTISE_DONE[new URL(view.redirect(d, ctx), "http://x").searchParams.get("done") ?? ""] ?? null,
    });
  const back = (done: string) => (_d: unknown, ctx: { params: Record<string, string> }) => `${pageOf(ctx.params.id!)}?done=${done}`;
  registerView("POST", `${ROUTE}/`, { redirect: (data) => `${pageOf((data as { id: string }).id)}?done=created` });
  registerView("PATCH", `${ROUTE}/:id`, { redirect: back("saved") });
  registerView("PUT", `${ROUTE}/:id/triggers`, { redirect: back("triggers") });
  // a publication that leaves the expertise active is served: the page says so
  registerView("POST", `${ROUTE}/:id/publish`, {
    redirect: (d, ctx) => back((d as { status?: string }).status === "active" ? "served" : "publish")(d, ctx),
  });
  for (const op of ["activate", "deactivate", "reactivate"] as const) registerView("POST", `${ROUTE}/:id/${op}`, { redirect: back(op) });
  registerView("DELETE", `${ROUTE}/:id`, { redirect: () => `${EXPERTISES_PAGE}?done=deleted` });
  views.register("POST", `${ROUTE}/:id/trigger-proposal`, {
    fragment: (data) => {
      const d = data as TriggerProposal & { id: string; revision: number };
      return <TriggerProposalView id={d.id} revision={d.revision} proposal={{ files: d.files, keywords: d.keywords }} />;
    },
  });
}
