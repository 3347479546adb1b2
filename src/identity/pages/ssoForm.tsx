/** @jsxImportSource hono/jsx */
/**
 * The form of `/org/sso` (pages/sso.tsx): with JavaScript it posts to `POST /web/orgs/current/sso` (a refusal in
 * #flash, each issue also under its field by app.js); without, to `POST /org/sso`, whose refusal answers this
 * page again with what was typed (never the client secret) and each problem under its field: the protocol
 * group's, the enforce box's, the domains', or at the top of the form when no single field caused it.
 */
import type { publicSso } from "../sso";
import { CheckField, ChoiceField, Field, FormActions, RefusalLine, type Refusal } from "../../ui/form";
import { formField } from "../../http/form";

type Public = ReturnType<typeof publicSso>;

/** What the form shows in its fields: the stored configuration, or what a refused post sent. */
export interface SsoFormValues {
  type: string;
  domains: string;
  enforce: boolean;
  oidcIssuer: string;
  oidcClientId: string;
  samlEntryPoint: string;
  samlIdpIssuer: string;
  samlIdpCert: string;
}

/** The stored configuration's values (the defaults when there is none). */
export function storedValues(s: Public["sso"]): SsoFormValues {
  return {
    type: s?.type ?? "oidc",
    domains: s?.domains.join(", ") ?? "",
    enforce: s?.enforce ?? false,
    oidcIssuer: s?.oidc?.issuer ?? "",
    oidcClientId: s?.oidc?.clientId ?? "",
    samlEntryPoint: s?.saml?.entryPoint ?? "",
    samlIdpIssuer: s?.saml?.idpIssuer ?? "",
    samlIdpCert: s?.saml?.idpCert ?? "",
  };
}

/** What a refused post sent, to show again (the client secret is never sent back). */
export function postedValues(body: unknown): SsoFormValues {
  const f = (name: string) => (formField(body, name) ?? "").slice(0, 20_000);
  return {
    type: f("type"),
    domains: f("domains"),
    enforce: ["true", "on", "1"].includes(f("enforce")),
    oidcIssuer: f("oidc_issuer"),
    oidcClientId: f("oidc_client_id"),
    samlEntryPoint: f("saml_entry_point"),
    samlIdpIssuer: f("saml_idp_issuer"),
    samlIdpCert: f("saml_idp_cert"),
  };
}

/** The field of the form an issue's path names ("" for none: the form as a whole). */
const FIELDS: Record<string, string> = {
  type: "sso-type",
  domains: "sso-domains",
  enforce: "sso-enforce",
  "oidc/issuer": "oidc-issuer",
  "oidc/clientId": "oidc-client-id",
  "oidc/clientSecret": "oidc-client-secret",
  "saml/entryPoint": "saml-entry",
  "saml/idpIssuer": "saml-issuer",
  "saml/idpCert": "saml-cert",
};
export const ssoFieldOf = (path: string): string => FIELDS[path.replace(/\/\d+$/, "")] ?? "";

export function SsoForm(props: { data: Public; values: SsoFormValues; refusal?: Refusal }) {
  const s = props.data.sso;
  const v = props.values;
  const at = (field: string) => props.refusal?.fields[field] ?? null;
  return (
    <form method="post" action="/org/sso" hx-post="/web/orgs/current/sso" id="sso-form">
      <input type="hidden" name="return" value="/org/sso" />
      <RefusalLine id="sso-form-refused" refusal={props.refusal} />
      <ChoiceField id="sso-type" legend="Protocol" issuePath="type" error={at("sso-type")}>
        <label class="check">
          <input type="radio" name="type" value="oidc" checked={v.type === "oidc"} /> OpenID Connect
        </label>
        <label class="check">
          <input type="radio" name="type" value="saml" checked={v.type === "saml"} /> SAML 2.0
        </label>
      </ChoiceField>
      <Field id="sso-domains" label="E-mail domains" help="Separated by commas, e.g. example.com, example.org." error={at("sso-domains")}>
        <input name="domains" type="text" required value={v.domains} placeholder="example.com, example.org" />
      </Field>
      <CheckField id="sso-enforce" label="Enforce: refuse password sign-in for these domains" error={at("sso-enforce")}>
        <input type="checkbox" name="enforce" value="true" checked={v.enforce} />
      </CheckField>
      <fieldset>
        <legend>OpenID Connect</legend>
        <Field id="oidc-issuer" label="Issuer URL" error={at("oidc-issuer")}>
          <input name="oidc_issuer" data-issue-path="oidc/issuer" type="url" value={v.oidcIssuer} placeholder="https://login.example.com" />
        </Field>
        <Field id="oidc-client-id" label="Client ID" error={at("oidc-client-id")}>
          <input name="oidc_client_id" data-issue-path="oidc/clientId" type="text" value={v.oidcClientId} />
        </Field>
        <Field
          id="oidc-client-secret"
          label="Client secret"
          help={s?.oidc?.clientSecretSet ? "Stored: leave empty to keep it." : null}
          error={at("oidc-client-secret")}
        >
          <input name="oidc_client_secret" data-issue-path="oidc/clientSecret" type="password" autocomplete="off" value="" />
        </Field>
      </fieldset>
      <fieldset>
        <legend>SAML 2.0</legend>
        <Field id="saml-entry" label="IdP sign-in URL" help="The SSO service, HTTP-Redirect binding." error={at("saml-entry")}>
          <input name="saml_entry_point" data-issue-path="saml/entryPoint" type="url" value={v.samlEntryPoint} />
        </Field>
        <Field id="saml-issuer" label="IdP entity ID (issuer)" error={at("saml-issuer")}>
          <input name="saml_idp_issuer" data-issue-path="saml/idpIssuer" type="text" value={v.samlIdpIssuer} />
        </Field>
        <Field
          id="saml-cert"
          label="IdP signing certificate (PEM)"
          help={
            s?.saml?.certificate
              ? `Stored certificate: SHA-256 ${s.saml.certificate.fingerprint256}, valid until ${s.saml.certificate.validTo}.`
              : null
          }
          error={at("saml-cert")}
        >
          <textarea name="saml_idp_cert" data-issue-path="saml/idpCert" rows={6}>
            {v.samlIdpCert}
          </textarea>
        </Field>
      </fieldset>
      <FormActions>
        <button type="submit">Save</button>
      </FormActions>
    </form>
  );
}
