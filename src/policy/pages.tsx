/** @jsxImportSource hono/jsx */
/**
 * `/org/policy`: the organization's talent policy for its owners and admins (anyone else gets
 * the 404 page): what is required and allowed, who set it, and the form (views.tsx). Required
 * talents are installed and active everywhere but, like any talent, served only when a task
 * designates them.
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../catalog/state";
import { createPageGuard } from "../tenancy/pageSessions";
import { Layout, page } from "../ui/layout";
import { readPolicy } from "./service";
import { PolicyForm, PolicySummary } from "./views";

export function policyPages(deps: CatalogDeps): Elysia {
  const plugin = new Elysia().use(createPageGuard(deps)).get(
    "/org/policy",
    async ({ page: ctx, org }) => {
      const policy = await readPolicy(deps.database, org.id);
      return page(
        <Layout title={`Talent policy · ${org.name}`} user={ctx.session.user} nav={ctx.nav}>
          <p class="crumbs">
            <a href="/org">{org.name}</a> /
          </p>
          <h1>Talent policy</h1>
          <p class="muted">
            Required talents are installed and active in every project of {org.name}, new ones included; members cannot disable or uninstall
            them. Like any talent they reach an agent only when its task designates them.
          </p>
          <PolicySummary policy={policy} catalog={deps.state.catalog!} />
          <PolicyForm policy={policy} />
        </Layout>,
      );
    },
    { orgPage: { admin: "This page is for the organization's owners and admins." } },
  );
  return plugin as unknown as Elysia;
}
