/** @jsxImportSource hono/jsx */
/**
 * `/org/policy`: the organization's talent policy for its owners and admins (anyone else gets
 * the 404 page): what is required and allowed, who set it, and the form (views.tsx). Required
 * talents are installed and active everywhere but, like any talent, served only when a task
 * designates them. The form sends `PUT /web/orgs/current/policy` with htmx; without JavaScript it
 * posts to `POST /org/policy`: a save → 303 back here with its status line, a refusal → this page
 * again (400 or 409) with what was typed and each problem under the list it concerns. The locked hook rules' card
 * (views.tsx LocksCard) posts to `POST /org/policy/locks` the same way.
 */
import { Elysia } from "elysia";
import type { CatalogDeps } from "../catalog/state";
import type { JournalDeps } from "../journal/journal";
import { AppError } from "../http/errors";
import { formField, formList } from "../http/form";
import { createPageGuard, type PageContext } from "../tenancy/pageSessions";
import { Layout, page } from "../ui/layout";
import { refusalOf } from "../ui/form";
import { statusCookie } from "../ui/status";
import { savePolicy } from "./save";
import { pickerOptions, type PickerFilters, type PickerOptions } from "./picker";
import { readPolicy, type PolicyView } from "./service";
import { changeLock, readLockBody } from "./lockRoutes";
import {
  LOCK_FIELDS,
  LocksCard,
  lockSaved,
  POLICY_FIELDS,
  PolicyForm,
  PolicySummary,
  policySaved,
  type LockAttempt,
  type PolicyAttempt,
} from "./views";

const NO_FILTER: PickerFilters = { q: "", aq: "" };
/** A filter of the query (`q`, `aq`), at most 100 characters. */
const filterOf = (v: unknown): string => (typeof v === "string" ? v.slice(0, 100) : "");

const ADMIN_ONLY = { admin: "This page is for the organization's owners and admins." };

function PolicyPage(props: {
  ctx: PageContext;
  org: { name: string };
  policy: PolicyView;
  catalog: CatalogDeps["state"]["catalog"];
  options: PickerOptions;
  filters?: PickerFilters;
  attempt?: PolicyAttempt;
  lockAttempt?: LockAttempt;
}) {
  const { org } = props;
  return (
    <Layout title={`Talent policy · ${org.name}`} user={props.ctx.session.user} nav={props.ctx.nav}>
      <p class="crumbs">
        <a href="/org">{org.name}</a> /
      </p>
      <h1>Talent policy</h1>
      <p class="muted">
        Required talents are installed and active in every project of {org.name}, new ones included; members cannot disable or uninstall
        them. Like any talent they reach an agent only when its task designates them.
      </p>
      <PolicySummary policy={props.policy} catalog={props.catalog!} />
      <PolicyForm policy={props.policy} attempt={props.attempt} options={props.options.talents} filters={props.filters ?? NO_FILTER} />
      <LocksCard locks={props.policy.hookRules} attempt={props.lockAttempt} rules={props.options.rules} />
    </Layout>
  );
}

export function policyPages(deps: CatalogDeps & JournalDeps): Elysia {
  const optionsOf = (organizationId: string) => pickerOptions(deps.database, deps.state.catalog!, organizationId);
  const plugin = new Elysia()
    .use(createPageGuard(deps))
    .get(
      "/org/policy",
      async ({ page: ctx, org, query }) => {
        const filters = { q: filterOf(query.q), aq: filterOf(query.aq) };
        const [policy, options] = await Promise.all([readPolicy(deps.database, org.id), optionsOf(org.id)]);
        return page(<PolicyPage ctx={ctx} org={org} policy={policy} catalog={deps.state.catalog} options={options} filters={filters} />);
      },
      { orgPage: ADMIN_ONLY },
    )
    .post(
      "/org/policy",
      async ({ page: ctx, org, body, request }) => {
        // the pickers' check boxes (a list, or one value), or an older form's text; the allow-list's mode (none: an older form)
        const values = {
          requiredTalents: formList(body, "requiredTalents")?.join("\n") ?? "",
          allowedMode: formField(body, "allowedMode") ?? "",
          allowedTalents: formList(body, "allowedTalents")?.join("\n") ?? "",
        };
        let saved: Awaited<ReturnType<typeof savePolicy>>;
        try {
          saved = await savePolicy(deps, org.id, ctx.session.user, values, request);
        } catch (e) {
          if (!(e instanceof AppError) || e.status >= 500 || e.status === 401 || e.status === 403) throw e;
          const attempt = { values, refusal: refusalOf(e, (path) => POLICY_FIELDS[path] ?? "") };
          const policy = await readPolicy(deps.database, org.id);
          const options = await optionsOf(org.id);
          const html = <PolicyPage ctx={ctx} org={org} policy={policy} catalog={deps.state.catalog} options={options} attempt={attempt} />;
          return page(html, e.status, { "cache-control": "no-store" });
        }
        const headers = { location: "/org/policy", "cache-control": "no-store", "set-cookie": statusCookie(policySaved(saved), request) };
        return new Response(null, { status: 303, headers });
      },
      { orgPage: ADMIN_ONLY },
    )
    .post(
      "/org/policy/locks",
      async ({ page: ctx, org, body, request }) => {
        const values = { rule: formField(body, "rule") ?? "", choice: formField(body, "choice") ?? "" };
        const lifted = formField(body, "remove") === "yes";
        let saved: Awaited<ReturnType<typeof changeLock>>;
        try {
          const change = lifted ? { rule: values.rule, choice: null } : readLockBody(values);
          saved = await changeLock(deps, org.id, ctx.session.user, change);
        } catch (e) {
          if (!(e instanceof AppError) || e.status >= 500 || e.status === 401 || e.status === 403) throw e;
          const lockAttempt = { values, refusal: refusalOf(e, (path) => LOCK_FIELDS[path] ?? "") };
          const policy = await readPolicy(deps.database, org.id);
          const options = await optionsOf(org.id);
          const html = (
            <PolicyPage ctx={ctx} org={org} policy={policy} catalog={deps.state.catalog} options={options} lockAttempt={lockAttempt} />
          );
          return page(html, e.status, { "cache-control": "no-store" });
        }
        const cookie = statusCookie(lockSaved(saved, lifted), request);
        return new Response(null, {
          status: 303,
          headers: { location: "/org/policy#policy-locks-h", "cache-control": "no-store", "set-cookie": cookie },
        });
      },
      { orgPage: ADMIN_ONLY },
    );
  return plugin as unknown as Elysia;
}
