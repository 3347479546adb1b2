/** @jsxImportSource hono/jsx */
/**
 * `/org/sso`: the active organization's single sign-on, for its owners and admins (anyone
 * else gets the 404 page). The form posts to `POST /web/orgs/current/sso` with htmx (a refusal shows
 * in #flash and under its fields), to `POST /org/sso` without JavaScript (a save answered by a 303 back
 * here, a refusal by this page again with what was typed and each problem under its field); the test
 * button posts to `POST /org/sso/test`, which runs `POST /web/orgs/current/sso/test`'s checks
 * and renders this page with their results and the test sign-in link.
 */
import { userActor } from "../../audit/record";
import { Elysia } from "elysia";
import type { ViewDeps } from "../../deps";
import { notFound } from "../../http/errors";
import { clientMeta } from "../../http/client";
import { recordSecurityEvent } from "../security";
import { loadSso, markTested, publicSso, testSso } from "../sso";
import { txtLookup, verifyDomainByDns } from "../ssoDomains";
import { AppError } from "../../http/errors";
import { formField } from "../../http/form";
import { createPageGuard, type OrgPageRule, type PageContext, type PageSessions } from "../../ui/pageGuard";
import { DataTable, Layout, page } from "../../ui/layout";
import { confirmations } from "../../ui/confirmations";
import { CheckField, FormActions, refusalOf, type Refusal } from "../../ui/form";
import { statusCookie } from "../../ui/status";
import { Alert } from "../../ui/parts";
import { saveOrgSso } from "../ssoChanges";
import { postedValues, SsoForm, ssoFieldOf, storedValues, type SsoFormValues } from "./ssoForm";

type Public = ReturnType<typeof publicSso>;
interface TestResult {
  ok: boolean;
  checks: { name: string; ok: boolean; message: string }[];
  link: string;
}

/** The domains and the proof each still needs: a pending one routes nothing until verified. */
/** `outcome`: the last verification's; a failure is said beside the claims, a success by the layout's status line. */
function DomainClaims(props: { data: Public; outcome?: { ok: boolean; message: string } }) {
  const claims = props.data.sso?.domainClaims ?? [];
  if (claims.length === 0) return null;
  return (
    <section class="card" aria-labelledby="sso-claims-h" id="sso-claims">
      <h2 id="sso-claims-h">Domains</h2>
      <p class="muted">
        A domain signs people in only once it is proven yours: publish the TXT record shown at your DNS provider, then verify. A platform
        administrator can also approve a domain (one without public DNS, say).
      </p>
      <Alert text={props.outcome && !props.outcome.ok ? props.outcome.message : null} id="sso-verify-outcome" />
      <DataTable caption="Domains and their proof" columns={["Domain", "Status", "Proof"]}>
        {claims.map((c) => (
          <tr>
            <td>{c.domain}</td>
            <td>{c.status === "verified" ? `Verified (${c.verifiedBy === "dns" ? "DNS" : "administrator"})` : "Pending"}</td>
            <td>
              {c.status === "verified" ? (
                <span class="muted">{c.verifiedAt}</span>
              ) : (
                <form method="post" action="/org/sso/verify">
                  <p class="break">
                    TXT <code>{c.record.name}</code> = <code>{c.record.value}</code>
                  </p>
                  <input type="hidden" name="domain" value={c.domain} />
                  <button type="submit">Verify {c.domain}</button>
                </form>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

/** The enterprise-managed authorization control (OIDC only): ID-JAGs from the IdP become access tokens for members. */
function EnterpriseGrant(props: { enabled: boolean }) {
  return (
    <section class="card" aria-labelledby="sso-enterprise-h" id="sso-enterprise">
      <h2 id="sso-enterprise-h">Enterprise-managed authorization</h2>
      <p class="muted">
        When on, MCP clients your identity provider authorizes get access tokens for your projects without a consent page: they present the
        identity assertion (ID-JAG) the provider issued for a member of this organization.
      </p>
      <form method="post" action="/web/orgs/current/sso/enterprise" hx-post="/web/orgs/current/sso/enterprise" id="sso-enterprise-form">
        <input type="hidden" name="return" value="/org/sso" />
        <CheckField id="sso-enterprise-enabled" label="Accept identity assertions from this identity provider">
          <input type="checkbox" name="enabled" value="true" checked={props.enabled} />
        </CheckField>
        <FormActions>
          <button type="submit">Save</button>
        </FormActions>
      </form>
    </section>
  );
}

/** A refused save posted without JavaScript: what was typed, and the problems by field. */
interface SsoAttempt {
  values: SsoFormValues;
  refusal: Refusal;
}

function SsoPage(props: {
  ctx: PageContext;
  data: Public;
  test?: TestResult;
  verify?: { ok: boolean; message: string };
  attempt?: SsoAttempt;
}) {
  const s = props.data.sso;
  const sp = props.data.serviceProvider;
  return (
    <Layout
      title="Single sign-on"
      user={props.ctx.session.user}
      nav={props.ctx.nav}
      status={props.verify?.ok ? props.verify.message : null}
    >
      <p class="crumbs">
        <a href="/org">Organization</a> /
      </p>
      <h1>Single sign-on</h1>
      <p class="muted">
        People whose e-mail is at one of the domains below sign in through your identity provider. New people join {props.ctx.active?.name}{" "}
        as members.
      </p>
      {props.test ? (
        <section class="card" id="sso-test" aria-labelledby="sso-test-h">
          <h2 id="sso-test-h">{props.test.ok ? "The configuration checks out" : "The configuration has problems"}</h2>
          {props.test.ok ? null : (
            <p class="error" role="alert" id="sso-test-problems">
              {props.test.checks
                .filter((c) => !c.ok)
                .map((c) => `${c.name}: ${c.message}`)
                .join(" ")}
            </p>
          )}
          <ul>
            {props.test.checks.map((c) => (
              <li class={c.ok ? "ok" : "error"}>
                <strong>{c.ok ? "OK" : "Problem"}</strong> {c.name}: {c.message}
              </li>
            ))}
          </ul>
          <p>
            <a href={props.test.link} id="sso-test-link">
              Try a test sign-in
            </a>{" "}
            <span class="muted">(signs you in through the identity provider, then comes back here)</span>
          </p>
        </section>
      ) : null}
      <DomainClaims data={props.data} outcome={props.verify} />
      <section class="card" aria-labelledby="sso-sp-h">
        <h2 id="sso-sp-h">Register talentd at your identity provider</h2>
        <dl class="facts urls">
          <dt>OIDC redirect URI</dt>
          <dd>
            <code>{sp.oidcRedirectUri}</code>
          </dd>
          <dt>SAML entity ID (audience)</dt>
          <dd>
            <code>{sp.samlEntityId}</code>
          </dd>
          <dt>SAML assertion consumer service (HTTP-POST)</dt>
          <dd>
            <code>{sp.samlAcsUrl}</code>
          </dd>
          <dt>SAML metadata</dt>
          <dd>
            <code>{sp.samlMetadataUrl}</code>
          </dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="sso-form-h">
        <h2 id="sso-form-h">{s ? "Configuration" : "Set up single sign-on"}</h2>
        {s ? (
          <p class="muted">
            {s.type.toUpperCase()} for {s.domains.join(", ")}
            {s.enforce ? "; password sign-in refused for these domains" : ""}.{" "}
            {s.testedAt ? `Last test passed ${s.testedAt}.` : "Not tested since the last change."}
          </p>
        ) : null}
        <SsoForm data={props.data} values={props.attempt?.values ?? storedValues(s)} refusal={props.attempt?.refusal} />
      </section>
      {s?.type === "oidc" ? <EnterpriseGrant enabled={s.enterpriseGrant} /> : null}
      {s ? (
        <section class="card" aria-labelledby="sso-actions-h">
          <h2 id="sso-actions-h">Test or remove</h2>
          <form method="post" action="/org/sso/test">
            <button type="submit" id="sso-test-button">
              Test the configuration
            </button>
          </form>
          <form
            method="post"
            action="/web/orgs/current/sso?_method=DELETE"
            hx-delete="/web/orgs/current/sso"
            hx-confirm={confirmations.removeSso().question}
          >
            <p>
              <button type="submit" class="danger">
                Remove single sign-on
              </button>
            </p>
          </form>
        </section>
      ) : null}
    </Layout>
  );
}

/** Single sign-on is set by the organization's owners and admins: anyone else gets the 404 page. */
const SSO_ADMIN: OrgPageRule = { admin: "No such page for your role: single sign-on is set by the organization's owners and admins." };

/** What the status line says after a save (the form without JavaScript and the route's view alike). */
export const SSO_SAVED = "Single sign-on saved.";

/**
 * The /org/sso page, its form's post without JavaScript and its test post; `sessions` finds the signed-in person
 * (handed in by the composition root).
 */
export function ssoPages(deps: ViewDeps, sessions: PageSessions) {
  return new Elysia()
    .use(createPageGuard(sessions))
    .get(
      "/org/sso",
      async ({ page: ctx, org }) => {
        return page(<SsoPage ctx={ctx} data={publicSso(deps.config, org.id, await loadSso(deps.database, org.id))} />);
      },
      { orgPage: SSO_ADMIN },
    )
    .post(
      "/org/sso",
      async ({ page: ctx, org, body, request, server }) => {
        const user = ctx.session.user;
        try {
          await deps.database.write((tx) => saveOrgSso(tx, org.id, body, user, clientMeta(request, server)));
        } catch (e) {
          if (!(e instanceof AppError) || e.status >= 500 || e.status === 401 || e.status === 403) throw e;
          const data = publicSso(deps.config, org.id, await loadSso(deps.database, org.id));
          const attempt = { values: postedValues(body), refusal: refusalOf(e, ssoFieldOf) };
          return page(<SsoPage ctx={ctx} data={data} attempt={attempt} />, e.status, { "cache-control": "no-store" });
        }
        const headers = { location: "/org/sso", "cache-control": "no-store", "set-cookie": statusCookie(SSO_SAVED, request) };
        return new Response(null, { status: 303, headers });
      },
      { orgPage: SSO_ADMIN },
    )
    .post(
      "/org/sso/test",
      async ({ page: ctx, org, request, server }) => {
        const settings = await loadSso(deps.database, org.id);
        if (!settings) throw notFound("This organization has no single sign-on to test: save a configuration first.");
        const result = await testSso(settings, deps.config.egress);
        await deps.database.write(async (tx) => {
          if (result.ok) await markTested(tx, org.id);
          await recordSecurityEvent(tx, {
            kind: "sso.tested",
            userId: ctx.session.user.id,
            email: ctx.session.user.email,
            ...clientMeta(request, server),
            detail: { organizationId: org.id, ok: result.ok, problems: result.problems },
          });
        });
        const link = `${deps.config.baseUrl}/api/auth/sso/${settings.verifiedDomains[0] ?? settings.domains[0]}?next=${encodeURIComponent("/org/sso")}`;
        const data = publicSso(deps.config, org.id, await loadSso(deps.database, org.id));
        return page(<SsoPage ctx={ctx} data={data} test={{ ...result, link }} />, 200);
      },
      { orgPage: SSO_ADMIN },
    )
    .post(
      "/org/sso/verify",
      async ({ page: ctx, org, request, body, server }) => {
        const domain = (formField(body, "domain") ?? "").trim().toLowerCase().slice(0, 253);
        let verify: { ok: boolean; message: string };
        let status = 200;
        try {
          await verifyDomainByDns(deps.database, txtLookup(deps.config), org.id, domain, userActor(ctx.session.user));
          await recordSecurityEvent(deps.database, {
            kind: "sso.domain_verified",
            userId: ctx.session.user.id,
            email: ctx.session.user.email,
            ...clientMeta(request, server),
            detail: { organizationId: org.id, domain, by: "dns" },
          });
          verify = { ok: true, message: `${domain} is verified: people at ${domain} now sign in through your identity provider.` };
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          verify = { ok: false, message: e.message };
          status = e.status;
        }
        return page(
          <SsoPage ctx={ctx} data={publicSso(deps.config, org.id, await loadSso(deps.database, org.id))} verify={verify} />,
          status,
        );
      },
      { orgPage: SSO_ADMIN },
    );
}
