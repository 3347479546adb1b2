/** @jsxImportSource hono/jsx */
/**
 * `/org/insights/rules` (docs/design.md "Rule effectiveness"): the Rules view of the insights, for
 * the organization's owners and admins — rules that fail most often after being served (and
 * talents judged fail), talents
 * served but never audited, rules never served in the window — each row linking to the talent's
 * sheet. It reads what `GET /web/orgs/current/rules` answers (src/activity/ruleEffect.ts), and, per talent, the
 * measured effect of the latest `talentd eval --upload` that measured it (src/activity/evals.ts).
 */
import { Elysia } from "elysia";
import type { JournalDeps } from "../journal/journal";
import type { CatalogDeps } from "../catalog/state";
import { dashboardReadCap } from "./readCap";
import { readWindow } from "./summaries";
import { ruleEffect, type RuleEffect, type RuleRow } from "./ruleEffect";
import { createPageGuard } from "../tenancy/pageSessions";
import { Card, DataTable, Layout, page } from "../ui/layout";
import { InlineMarkdown } from "../ui/markdown";
import { EXPERTISES_ADMIN } from "../expertises/pages";
import { WindowForm } from "./pages";
import { latestEffects, type MeasuredEffect } from "../projects/measuredEffect";
import { perRun } from "../projects/views/measuredEffect";

const rate = (x: number | null) => (x === null ? "—" : `${Math.round(x * 100)}%`);

/**
 * Per talent, the latest `talentd eval --upload` that measured it: findings of its rules per run and the check's
 * pass rate, with and without talentd.
 */
function MeasuredSection(props: { rows: MeasuredEffect[] }) {
  return (
    <Card
      id="measured-effect"
      title="Measured effect (talentd eval)"
      empty={props.rows.length === 0 && "No eval uploaded yet: talentd eval --upload measures a talent's effect on your own agent's code."}
    >
      <DataTable
        caption="Measured effect per talent, from the latest eval"
        columns={["Talent", "Findings per run with", "Findings per run without", "Check with", "Check without", "Runs", "Eval"]}
      >
        {props.rows.map((e) => (
          <tr>
            <td>
              <a href={`/catalog/${e.talent}`}>{e.talent}</a>
            </td>
            <td class="num">{perRun(e.with)}</td>
            <td class="num">{perRun(e.without)}</td>
            <td class="num">{rate(e.with.checkPassRate)}</td>
            <td class="num">{rate(e.without.checkPassRate)}</td>
            <td class="num">
              {e.with.runs}+{e.without.runs}
              {e.neverInvoked > 0 ? <div class="small muted">{e.neverInvoked} never invoked</div> : null}
            </td>
            <td class="small">
              <time datetime={e.createdAt}>{e.createdAt.slice(0, 10)}</time> in {e.projectName}
            </td>
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}

/** `served / not served` of a rule's findings, with the clients that reported them. */
function Findings(props: { r: RuleRow }) {
  return (
    <>
      <td class="num">{props.r.findings.served}</td>
      <td class="num">{props.r.findings.notServed}</td>
      <td class="small">{props.r.byClient.map((c) => `${c.name} ${c.served + c.notServed}`).join(", ") || "—"}</td>
    </>
  );
}

/** The tools that prepared the resolutions serving a talent, with how many each (and audited). */
function ServedTo(props: { t: RuleEffect["talents"][number] }) {
  return <td class="small">{props.t.byClient.map((c) => `${c.name} ${c.served} (${c.audited} audited)`).join(", ") || "—"}</td>;
}

function RuleName(props: { r: RuleRow }) {
  return (
    <td>
      <a href={props.r.href}>
        {props.r.talentId} <code>{props.r.ruleId}</code>
      </a>
      {props.r.title ? (
        <div class="small muted">
          <InlineMarkdown text={props.r.title} />
        </div>
      ) : null}
    </td>
  );
}

function FailingSection(props: { rows: RuleRow[] }) {
  return (
    <Card
      id="failing"
      title="Rules that fail most often after being served"
      empty={props.rows.length === 0 && "No rule's detectors found anything on a change whose task was served the rule."}
    >
      <DataTable
        caption="Rules by findings after being served"
        columns={["Rule", "Findings (served)", "Findings (not served)", "By client", "Fail verdicts", "Served", "Audited"]}
      >
        {props.rows.map((r) => (
          <tr>
            <RuleName r={r} />
            <Findings r={r} />
            <td class="num">{r.failVerdicts}</td>
            <td class="num">{r.served}</td>
            <td class="num">{r.audited}</td>
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}

function FailingTalentsSection(props: { rows: RuleEffect["failingTalents"] }) {
  return (
    <Card
      id="failing-talents"
      title="Talents judged fail after being served"
      empty={props.rows.length === 0 && "No fail verdict in the window."}
    >
      <DataTable
        caption="Talents by fail verdicts"
        columns={["Talent", "Fail", "Pass", "Not applicable", "Served", "Audited", "Served to"]}
      >
        {props.rows.map((t) => (
          <tr>
            <td>
              <a href={t.href}>{t.talentId}</a>
            </td>
            <td class="num">{t.verdicts.fail}</td>
            <td class="num">{t.verdicts.pass}</td>
            <td class="num">{t.verdicts.not_applicable}</td>
            <td class="num">{t.served}</td>
            <td class="num">{t.audited}</td>
            <ServedTo t={t} />
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}

function UnauditedSection(props: { rows: RuleEffect["servedNeverAudited"] }) {
  return (
    <Card
      id="never-audited-talents"
      title="Served but never audited"
      empty={props.rows.length === 0 && "Every talent served in the window had its playbook fetched at least once."}
    >
      <DataTable caption="Talents served and never audited" columns={["Talent", "Served", "Rules", "Served to"]}>
        {props.rows.map((t) => (
          <tr>
            <td>
              <a href={t.href}>{t.talentId}</a>
            </td>
            <td class="num">{t.served}</td>
            <td class="num">{t.rules}</td>
            <ServedTo t={t} />
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}

function NeverServedSection(props: { rows: RuleRow[] }) {
  return (
    <Card
      id="never-served"
      title="Rules never served in the window"
      empty={props.rows.length === 0 && "Every rule of the installed talents was served."}
    >
      <DataTable caption="Rules never served" columns={["Rule", "Severity", "Findings (not served)"]}>
        {props.rows.map((r) => (
          <tr>
            <RuleName r={r} />
            <td>{r.severity ?? "—"}</td>
            <td class="num">{r.findings.notServed}</td>
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}

export function orgRulesPage(deps: CatalogDeps & JournalDeps) {
  const cap = dashboardReadCap(deps.database, deps.config.dashboardReadsPerUser);
  return new Elysia().use(createPageGuard(deps)).get(
    "/org/insights/rules",
    async ({ page: ctx, org, query, request }) => {
      const w = readWindow(query, deps.config.eventRetentionDays);
      const [d, measured] = await cap.run(ctx.session.user.id, request, async () => {
        await deps.journal.settle();
        return Promise.all([
          ruleEffect(deps.database, deps.state.catalog!, { organizationId: org.id }, w),
          latestEffects(deps.database, org.id),
        ]);
      });
      const t = d.totals;
      return page(
        <Layout title="Rules" user={ctx.session.user} nav={ctx.nav}>
          <div class="row">
            <h1>Rules of {org.name}</h1>
            <WindowForm action="/org/insights/rules" days={w.days} />
          </div>
          <p class="muted">
            In the last {w.days} days: talents served {t.served} times, audited {t.audited}; verdicts {t.verdicts.pass} pass,{" "}
            {t.verdicts.fail} fail, {t.verdicts.not_applicable} not applicable; detector findings {t.findings.served} on changes whose task
            was served the rule, {t.findings.notServed} on others. Back to <a href={`/org/insights?days=${w.days}`}>insights</a>;{" "}
            <a href={`/web/orgs/current/rules?days=${w.days}&format=csv`}>download as CSV</a>.
          </p>
          <FailingSection rows={d.failingAfterServed} />
          <FailingTalentsSection rows={d.failingTalents} />
          <UnauditedSection rows={d.servedNeverAudited} />
          <NeverServedSection rows={d.neverServed} />
          <MeasuredSection rows={measured} />
        </Layout>,
      );
    },
    { orgPage: EXPERTISES_ADMIN },
  );
}
