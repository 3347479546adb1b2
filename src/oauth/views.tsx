/** @jsxImportSource hono/jsx */
/** The pages of the authorization server: consent, and the refusal page. */
import type { KeyScope } from "../db/schema";
import { Layout } from "../ui/layout";
import { Isolated } from "../ui/parts";

/** What each scope lets the client do, as shown on the consent page. */
export const SCOPE_LABELS: Record<KeyScope, string> = {
  prepare_task: "Prepare tasks: compile the talents it designates (svc_prepare_task)",
  validate: "Read audit playbooks of its resolutions (svc_validate)",
  record_validation: "Record validation verdicts for private expertises (svc_record_validation)",
  deepen: "Search talents and read talent files (svc_deepen)",
  doctor: "Check the selection for missing prerequisites and conflicts (svc_doctor)",
  catalog: "List the public catalog",
  discover: "Read the discovery playbook (svc_discover_codebase)",
  install: "Install talents in the project (svc_install_talents)",
  import: "Import rule files as expertise drafts of the organization (talentd import)",
};

const check = { width: "auto", marginRight: ".5rem" };

export interface ConsentProps {
  user: { email: string };
  /** `from`: the host that served a metadata-document client's description (oauth/cimd.ts). */
  client: { name: string; id: string; from?: string };
  redirectHost: string;
  /** The project named by `resource`, or null when the user picks one (bare `/mcp`). */
  project: { id: string; name: string; organizationName: string } | null;
  choices: { id: string; name: string; organizationName: string }[];
  scopes: KeyScope[];
  /** The authorization request, carried through the form unchanged. */
  request: Record<string, string>;
}

export function ConsentPage(p: ConsentProps) {
  return (
    <Layout title="Authorize access" user={p.user}>
      <div class="card">
        <h1>
          Authorize <Isolated text={p.client.name} />
        </h1>
        <p>
          <strong>
            <Isolated text={p.client.name} />
          </strong>{" "}
          <span class="muted">
            ({p.client.from ? `described by ${p.client.from}, ` : ""}returns to {p.redirectHost})
          </span>{" "}
          asks to act on
          {p.project ? (
            <>
              {" "}
              the project <strong>{p.project.name}</strong> of <strong>{p.project.organizationName}</strong>
            </>
          ) : (
            " one of your projects"
          )}{" "}
          as {p.user.email}.
        </p>
        <form method="post" action="/oauth/authorize">
          {Object.entries(p.request).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          {p.project ? null : (
            <>
              <label for="project_id">Project</label>
              <select id="project_id" name="project_id" required>
                {p.choices.map((c) => (
                  <option value={c.id}>
                    {c.organizationName} / {c.name}
                  </option>
                ))}
              </select>
            </>
          )}
          <fieldset>
            <legend>Allow it to</legend>
            {p.scopes.map((s) => (
              <div>
                <label style={{ fontWeight: "normal" }}>
                  <input type="checkbox" name={`scope_${s}`} value="on" checked style={check} />
                  {SCOPE_LABELS[s]} <code>{s}</code>
                </label>
              </div>
            ))}
          </fieldset>
          <p class="muted">
            Untick what it should not do. The client keeps this access and renews it without asking again; it ends when the client revokes
            it, when you leave the organization, or after 30 days without use.
          </p>
          <p>
            <button type="submit" name="decision" value="allow">
              Allow
            </button>{" "}
            <button type="submit" name="decision" value="deny" class="secondary">
              Deny
            </button>
          </p>
        </form>
      </div>
    </Layout>
  );
}

/** A refusal the user must read (the client's redirect cannot be trusted, or there is nothing to consent to). */
export function OAuthErrorPage(p: {
  title: string;
  message: string;
  user?: { email: string } | null;
  /** `name`: a name someone else chose, shown isolated after the label (ui/parts.tsx `Isolated`). */
  links?: { href: string; label: string; name?: string }[];
}) {
  return (
    <Layout title={p.title} user={p.user ?? null}>
      <div class="card">
        <h1>{p.title}</h1>
        <p class="error">{p.message}</p>
        {(p.links ?? []).map((l) => (
          <p>
            <a href={l.href}>
              {l.label}
              {l.name === undefined ? null : <Isolated text={l.name} />}
            </a>
          </p>
        ))}
      </div>
    </Layout>
  );
}
