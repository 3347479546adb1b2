/** @jsxImportSource hono/jsx */
/**
 * `/` (docs/api.md "Pages": pick or create a project). Signed out: to `/login`. Signed in: the
 * projects of the active organization as a feed of their agents' work, those that need a person
 * first (views/feed.tsx; or the empty state that leads to `/projects/new`), the organization's
 * approval status when it is not approved, and how to get an organization when there is none.
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../../catalog/state";
import type { JournalDeps } from "../../journal/journal";
import { listProjects } from "../service";
import { organizationFeeds } from "../feed";
import { HomeFeed } from "../views/feed";
import { createPageGuard } from "../../tenancy/pageSessions";
import { Layout, pageHtml, pageOfBytes } from "../../ui/layout";
import { KeptPages } from "../../ui/memo";

/** The home pages (ui/memo.ts KeptPages): kept while each project's kept feed is the same object. */
const homePages = new KeptPages(4 * 1024 * 1024);

export function homePage(deps: CatalogDeps & JournalDeps) {
  return new Elysia().use(createPageGuard(deps)).get(
    "/",
    async ({ page: ctx }) => {
      const active = ctx.active;
      const projects = active?.status === "approved" ? await listProjects(deps.database, active.id) : [];
      if (projects.length > 0) await deps.journal.settle(); // the last run's tool: every call that completed before this view
      const feeds = active && projects.length > 0 ? await organizationFeeds(deps.database, deps.state.catalog, active.id, projects) : [];
      const { user } = ctx.session;
      const key = JSON.stringify([user.name, user.email, user.role, ctx.nav, active, ctx.organizations, deps.config.autoApproveOrgs]);
      return pageOfBytes(
        homePages.bytes(key, feeds, () =>
          pageHtml(
            <Layout title="Projects" user={ctx.session.user} nav={ctx.nav}>
              <h1>Welcome{ctx.session.user.name ? `, ${ctx.session.user.name}` : ""}</h1>
              {!active ? (
                <div class="card">
                  <h2>No organization yet</h2>
                  <p>
                    Ask a colleague for an invitation (its link opens the way in), or create an organization
                    {deps.config.autoApproveOrgs || ctx.session.user.role === "admin"
                      ? "."
                      : ": a platform administrator approves new ones."}
                  </p>
                  <p>
                    <a class="button" href="/org/new">
                      Create an organization
                    </a>
                  </p>
                </div>
              ) : active.status !== "approved" ? (
                <div class="card">
                  <h2>
                    {active.name} is {active.status}
                  </h2>
                  <p>
                    {active.status === "pending"
                      ? "A platform administrator must approve it before its projects can be used. Nothing else is needed from you."
                      : "Its projects cannot be used. Ask a platform administrator."}
                  </p>
                </div>
              ) : (
                <section aria-labelledby="projects-h">
                  <div class="row">
                    <h2 id="projects-h">Projects of {active.name}</h2>
                    <a class="button" href="/projects/new">
                      New project
                    </a>
                  </div>
                  {projects.length === 0 ? (
                    <div class="card empty">
                      <p>No project yet. A project is one codebase: its talents, its keys and what its agents did.</p>
                      <p>
                        <a class="button" href="/projects/new">
                          Create your first project
                        </a>
                      </p>
                    </div>
                  ) : (
                    <HomeFeed feeds={feeds} baseUrl={deps.config.baseUrl} />
                  )}
                </section>
              )}
              {ctx.organizations.length > 1 ? (
                <section aria-labelledby="orgs-h">
                  <h2 id="orgs-h">Your organizations</h2>
                  <ul>
                    {ctx.organizations.map((o) => (
                      <li>
                        <strong>{o.name}</strong> <span class="muted">({o.role})</span> — {o.status}
                        {active?.id === o.id ? <span class="tag">active</span> : null}
                      </li>
                    ))}
                  </ul>
                </section>
              ) : null}
            </Layout>,
          ),
        ),
      );
    },
    { page: "signedIn" },
  );
}
