/** @jsxImportSource hono/jsx */
/**
 * The HTML views of the expertise routes, kept beside their routes (docs/architecture.md): the
 * list and creation form (list.tsx), the editor with its merge view and the validator's
 * issues by line (editor.tsx), triggers, lifecycle, versions and deletion
 * (lifecycle.tsx). The page (src/expertises/pages.tsx) composes them; after a change
 * through htmx or a plain form the route sends the browser back to the page (EXPERTISE_VIEWS, in the routes' descriptors).
 */
import type { RouteView, ViewContext } from "../../ui/views";
import { EXPERTISES_PAGE, pageOf } from "./list";
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
 * A change's view: back to the page, the layout's status line saying what it did (carried by the status cookie,
 * never read from the address).
 */
function backToPage(redirect: (d: unknown, ctx: ViewContext) => string): RouteView {
  return {
    redirect,
    status: (d, ctx) => EXPERTISE_DONE[new URL(redirect(d, ctx), "http://x").searchParams.get("done") ?? ""] ?? null,
  };
}

/** The expertise's page, with what was done. */
const back = (done: string) => (_d: unknown, ctx: { params: Record<string, string> }) => `${pageOf(ctx.params.id!)}?done=${done}`;

/** The views of the expertise routes (their descriptors, expertises/describe.ts): every change sends the browser back to the page. */
export const EXPERTISE_VIEWS = {
  created: () => backToPage((data) => `${pageOf((data as { id: string }).id)}?done=created`),
  saved: () => backToPage(back("saved")),
  triggers: () => backToPage(back("triggers")),
  // a publication that leaves the expertise active is served: the page says so
  publish: () => backToPage((d, ctx) => back((d as { status?: string }).status === "active" ? "served" : "publish")(d, ctx)),
  lifecycle: (op: "activate" | "deactivate" | "reactivate") => backToPage(back(op)),
  deleted: () => backToPage(() => `${EXPERTISES_PAGE}?done=deleted`),
  proposal: (): RouteView => ({
    fragment: (data) => {
      const d = data as TriggerProposal & { id: string; revision: number };
      return <TriggerProposalView id={d.id} revision={d.revision} proposal={{ files: d.files, keywords: d.keywords }} />;
    },
  }),
};
