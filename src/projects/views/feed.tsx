/** @jsxImportSource hono/jsx */
/**
 * The home page's project cards (pages/home.tsx; reads in feed.ts): what the project's agents did
 * in the last days and what needs a person, the outcomes first, each linked to where it is shown in
 * full (the project's Activity tab filtered to it, its Keys tab, its overview), then the MCP URL.
 */
import { clientName } from "../../journal/clients";
import { when } from "../../ui/parts";
import { HtmlByObject } from "../../ui/memo";
import { FEED_DAYS, FEED_LISTED, KEY_WARN_DAYS, needsYou, type FeedVerdict, type ProjectFeed } from "../feed";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const activity = (projectId: string, q: Record<string, string>) =>
  `/projects/${projectId}?${new URLSearchParams({ tab: "activity", ...q })}`;
const days = (ms: number, now: number) => Math.max(0, Math.ceil((ms - now) / 86_400_000));

/** What needs a person in this project, each a line with where to act. */
function NeedsYou(props: { f: ProjectFeed }) {
  const f = props.f;
  const now = f.readAt;
  const id = f.project.id;
  return (
    <div class="needs" role="note" aria-label={`Needs you in ${f.project.name}`}>
      <strong>Needs you</strong>
      <ul>
        {f.failing.length > 0 ? (
          <li>
            <a href={activity(id, { result: "fail" })}>{plural(f.failing.length, "failing verdict")}</a>
          </li>
        ) : null}
        {f.requiredMissing.length > 0 ? (
          <li>
            Required by the organization, not installed and enabled: <a href={`/projects/${id}`}>{f.requiredMissing.join(", ")}</a>
          </li>
        ) : null}
        {f.requiredNotDesignated.map((r) => (
          <li>
            Required <a href={activity(id, { talent: r.talentId })}>{r.talentId}</a> left out of {plural(r.tasks, "task")}
          </li>
        ))}
        {f.expiringKeys.map((k) => (
          <li>
            Key <a href={`/projects/${id}?tab=keys`}>{k.name}</a> expires in {plural(days(k.expiresAt, now), "day")} ({when(k.expiresAt)})
          </li>
        ))}
      </ul>
    </div>
  );
}

function Verdict(props: { v: FeedVerdict; projectId: string }) {
  const v = props.v;
  return (
    <li>
      <a href={activity(props.projectId, { result: "fail", talent: v.talentId })}>{v.talentId}</a>
      {v.evidence.length > 0 ? (
        <>
          {" at "}
          {v.evidence.slice(0, 3).map((e, i) => (
            <>
              {i > 0 ? ", " : null}
              <code class="evidence">{e}</code>
            </>
          ))}
          {v.evidence.length > 3 ? ` and ${v.evidence.length - 3} more` : null}
        </>
      ) : null}
      {v.missing.length > 0 ? <> · missing: {v.missing.slice(0, 2).join("; ")}</> : null}
    </li>
  );
}

/** Each card's HTML, kept while its feed is the same object (feed.ts keeps it per data version and hour). */
const cards = new HtmlByObject<ProjectFeed, string>((a, b) => a === b);

/** One project's card: outcomes, facts, then its MCP URL. */
export function FeedCard(props: { f: ProjectFeed; baseUrl: string }) {
  return cards.render(props.f, props.baseUrl, () => <Card f={props.f} baseUrl={props.baseUrl} />);
}

function Card(props: { f: ProjectFeed; baseUrl: string }) {
  const f = props.f;
  const p = f.project;
  return (
    <li class={needsYou(f) ? "card feed-card needs-you" : "card feed-card"}>
      <h3>
        <a href={`/projects/${p.id}`}>{p.name}</a>
      </h3>
      {needsYou(f) ? <NeedsYou f={f} /> : null}
      <p class="counts small">
        <span>
          <strong>{f.runs}</strong> {f.runs === 1 ? "run" : "runs"} in {FEED_DAYS} days
        </span>
        <span>
          <strong>{f.talents.enabled}</strong> {f.talents.enabled === 1 ? "talent" : "talents"}
          {f.talents.installed > f.talents.enabled ? ` (${f.talents.installed - f.talents.enabled} disabled)` : ""}
        </span>
      </p>
      <p class="small">
        {f.lastRun ? (
          <>
            Last run {when(f.lastRun.at)} UTC by {f.lastRun.who}
            {f.lastRun.client ? <> with {clientName(f.lastRun.client)}</> : null} ·{" "}
            <a href={activity(p.id, {})}>
              Activity<span class="visually-hidden"> of {p.name}</span>
            </a>
          </>
        ) : (
          <span class="muted">No run yet: connect an agent from the project's page.</span>
        )}
      </p>
      {f.failing.length > 0 ? (
        <div class="small">
          <strong class="error">Failing verdicts</strong>
          <ul class="outcome">
            {f.failing.slice(0, FEED_LISTED).map((v) => (
              <Verdict v={v} projectId={p.id} />
            ))}
          </ul>
        </div>
      ) : null}
      {f.blocking.length > 0 ? (
        <div class="small">
          <strong class="error">Blocking findings</strong> <span class="muted">(last {FEED_DAYS} days)</span>
          <ul class="outcome">
            {f.blocking.slice(0, FEED_LISTED).map((b) => (
              <li>
                <a href={activity(p.id, { result: "fail", talent: b.talent })}>
                  <code class="rule-id">{b.rule}</code> of {b.talent}
                </a>
                : {plural(b.findings, "finding")}
              </li>
            ))}
            {f.blocking.length > FEED_LISTED ? <li class="muted">and {f.blocking.length - FEED_LISTED} more rules</li> : null}
          </ul>
        </div>
      ) : null}
      {p.description ? <p class="muted small">{p.description}</p> : null}
      <div class="copy-row small card-url">
        <span>MCP URL</span>
        <code id={`mcp-url-${p.id}`}>{`${props.baseUrl}/mcp/${p.id}`}</code>
        <button type="button" class="secondary small" data-copy={`#mcp-url-${p.id}`}>
          Copy<span class="visually-hidden"> the MCP URL of {p.name}</span>
        </button>
      </div>
    </li>
  );
}

/** The feed: the count of projects that need a person, then every card. */
export function HomeFeed(props: { feeds: ProjectFeed[]; baseUrl: string }) {
  const needing = props.feeds.filter(needsYou).length;
  return (
    <>
      <p class="muted">
        What the agents did in the last {FEED_DAYS} days.{" "}
        {needing > 0 ? `${plural(needing, "project")} need${needing === 1 ? "s" : ""} you, listed first.` : "Nothing needs you."} Keys are
        flagged {KEY_WARN_DAYS} days before they expire.
      </p>
      <ul class="cards feed">
        {props.feeds.map((f) => (
          <FeedCard f={f} baseUrl={props.baseUrl} />
        ))}
      </ul>
    </>
  );
}
