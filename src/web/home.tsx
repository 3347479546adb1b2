/** @jsxImportSource hono/jsx */
/**
 * `/`, where sign-in, setup and account creation land. Signed out: to `/login`. Signed in:
 * the person's organizations (with their approval status) and the projects of the active one
 * with the MCP URL an agent connects to, plus what to do next while a step has no page yet
 * (the `/web/*` calls of the README). The dashboard's pages (issue 13) grow from here.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import { activeOrganization, optionalSession } from "../auth/session";
import { listProjects } from "../projects/service";
import { listMemberships, type OrgMembership } from "../tenancy/service";
import { Layout, page } from "./layout";

interface HomeProps {
  user: { email: string; name: string; role: string };
  organizations: OrgMembership[];
  active: OrgMembership | null;
  projects: { id: string; name: string }[];
  baseUrl: string;
}

function Home(p: HomeProps) {
  const origin = new URL(p.baseUrl).origin;
  return (
    <Layout title="Home" user={p.user}>
      <div class="card">
        <h1>Welcome{p.user.name ? `, ${p.user.name}` : ""}</h1>
        {p.organizations.length === 0 ? (
          <>
            <p>You do not belong to an organization yet. Ask a colleague for an invitation, or create one:</p>
            <pre>
              <code>{`curl -b cookies -H 'Origin: ${origin}' -H 'content-type: application/json' \\\n  -d '{"name":"Acme"}' ${p.baseUrl}/web/orgs`}</code>
            </pre>
            <p class="muted">(with the session cookie of a curl sign-in; see the README's first steps)</p>
          </>
        ) : (
          <>
            <h2>Your organizations</h2>
            <ul>
              {p.organizations.map((o) => (
                <li>
                  <strong>{o.name}</strong> <span class="muted">({o.role})</span> — {o.status === "approved" ? "approved" : <span class="error">{o.status}: waiting for a platform administrator</span>}
                  {p.active?.id === o.id ? <span class="tag">active</span> : null}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
      {p.active && p.active.status === "approved" ? (
        <div class="card">
          <h2>Projects of {p.active.name}</h2>
          {p.projects.length === 0 ? (
            <p>No project yet. Create one with <code>POST /web/projects</code> (README, first steps).</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Project</th>
                  <th scope="col">MCP URL for agents</th>
                </tr>
              </thead>
              <tbody>
                {p.projects.map((x) => (
                  <tr>
                    <td>{x.name}</td>
                    <td>
                      <code>{`${p.baseUrl}/mcp/${x.id}`}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      ) : null}
    </Layout>
  );
}

export function homePage(deps: AppDeps) {
  return new Elysia().get("/", async ({ request }) => {
    const session = await optionalSession(deps.database, request);
    if (!session) return new Response(null, { status: 303, headers: { location: "/login", "cache-control": "no-store" } });
    const organizations = await listMemberships(deps.database, session.user.id);
    const active = await activeOrganization(deps.database, session);
    const projects = active?.status === "approved" ? await listProjects(deps.database, active.id) : [];
    return page(<Home user={session.user} organizations={organizations} active={active} projects={projects} baseUrl={deps.config.baseUrl} />);
  });
}
