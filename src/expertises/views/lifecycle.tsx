/** @jsxImportSource hono/jsx */
/**
 * An expertise's triggers (the proposal and its confirmation), lifecycle operations, published
 * versions and typed deletion.
 */
import { TypedDeleteForm } from "../../ui/typedDelete";
import { Field, FormActions, RefusalLine, type Refusal } from "../../ui/form";
import type { LifecycleOperation } from "../lifecycle";
import type { TriggerProposal } from "../triggers";
import { DataTable } from "../../ui/layout";
import { pageOf, ROUTE, StatusTag, when, type ExpertiseDetail } from "./list";

/**
 * A refused confirmation posted without JavaScript: the lines as typed, the revision they were typed on (none after a
 * stale revision's refusal: the form then confirms against the current one), and the problems by field
 * (`trigger-files`, `trigger-keywords`; a stale revision above the form).
 */
export interface TriggerAttempt {
  files: string;
  keywords: string;
  revision?: number;
  refusal: Refusal;
}

/** The form's field of an issue's path (`files[2]` → `trigger-files`), "" for none. */
export const triggerFieldOf = (path: string): string =>
  path === "files" || path.startsWith("files[")
    ? "trigger-files"
    : path === "keywords" || path.startsWith("keywords[")
      ? "trigger-keywords"
      : "";

interface TriggerForm {
  id: string;
  revision: number;
  files: string[];
  keywords: string[];
  proposal?: TriggerProposal;
  attempt?: TriggerAttempt;
}

/** One column of the triggers form: its lines (as typed, else as confirmed) and, under a proposal, why each was proposed. */
function TriggerColumn({ form, field, label }: { form: TriggerForm; field: "files" | "keywords"; label: string }) {
  const a = form.attempt;
  return (
    <div>
      <Field id={`trigger-${field}`} label={`${label} (one per line)`} error={a?.refusal.fields[`trigger-${field}`] ?? null}>
        <textarea name={field} rows={5} spellcheck={false} class="code">
          {a ? a[field] : form[field].join("\n")}
        </textarea>
      </Field>
      {form.proposal ? (
        <ul class="small muted why">
          {form.proposal[field].map((t) => (
            <li>
              <code>{t.value}</code>: {t.why}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * The confirmation form of triggers, prefilled with a proposal, the confirmed ones or a refused attempt. With htmx it
 * sends `PUT …/:id/triggers`; without JavaScript it posts to the expertise's page (`?form=triggers`), which answers a
 * refusal with this form again.
 */
export function TriggerConfirmForm(props: TriggerForm) {
  const target = `${ROUTE}/${props.id}/triggers`;
  const a = props.attempt;
  return (
    <form method="post" action={`${pageOf(props.id)}?form=triggers#triggers`} hx-put={target} hx-swap="none" id="trigger-form">
      <RefusalLine id="trigger-refused" refusal={a?.refusal} />
      <input type="hidden" name="expectedRevision" value={String(a?.revision ?? props.revision)} />
      <div class="merge">
        <TriggerColumn form={props} field="files" label="File globs" />
        <TriggerColumn form={props} field="keywords" label="Keywords" />
      </div>
      <FormActions>
        <button type="submit">Confirm triggers</button>
      </FormActions>
    </form>
  );
}

/** The proposal fragment (POST …/trigger-proposal for htmx, `?propose=1` without JavaScript). */
export function TriggerProposalView(props: { id: string; revision: number; proposal: TriggerProposal }) {
  return (
    <div id="proposal">
      <p>
        Proposed from the working TALENT.md (revision {props.revision}); keep, change or remove lines, then confirm. Nothing is stored until
        you confirm.
      </p>
      <TriggerConfirmForm
        id={props.id}
        revision={props.revision}
        files={props.proposal.files.map((f) => f.value)}
        keywords={props.proposal.keywords.map((k) => k.value)}
        proposal={props.proposal}
      />
    </div>
  );
}

/** Confirmed triggers, the proposal button, and (when asked) the proposal, or a refused attempt's form again. */
export function TriggersSection(props: { e: ExpertiseDetail; proposal?: TriggerProposal; attempt?: TriggerAttempt }) {
  const e = props.e;
  return (
    <section class="card" id="triggers" aria-labelledby="triggers-h">
      <h2 id="triggers-h">Triggers</h2>
      {!e.triggers && e.verification.triggersFrom === "front matter" ? (
        <p>Taken from the front matter (triggers written there count as confirmed); confirm another set below to replace them.</p>
      ) : null}
      {e.triggers ? (
        <p>
          Confirmed {when(e.triggersConfirmedAt)}: files{" "}
          {e.triggers.files.length > 0 ? e.triggers.files.map((f) => <code>{f} </code>) : "none"}; keywords{" "}
          {e.triggers.keywords.length > 0 ? e.triggers.keywords.map((k) => <code>{k} </code>) : "none"}.
        </p>
      ) : (
        e.verification.triggersFrom === null && (
          <p class="muted">
            Not confirmed yet: publication needs triggers (what makes an agent designate this expertise), written in the front matter or
            confirmed here.
          </p>
        )
      )}
      <form
        method="get"
        action={`${pageOf(e.id)}#triggers`}
        hx-post={`${ROUTE}/${e.id}/trigger-proposal`}
        hx-target="#proposal"
        hx-swap="outerHTML"
      >
        <input type="hidden" name="propose" value="1" />
        <button type="submit" class="secondary">
          Propose triggers
        </button>
      </form>
      {props.attempt ? (
        <div id="proposal">
          <TriggerConfirmForm id={e.id} revision={e.revision} files={[]} keywords={[]} attempt={props.attempt} />
        </div>
      ) : props.proposal ? (
        <TriggerProposalView id={e.id} revision={e.revision} proposal={props.proposal} />
      ) : (
        <div id="proposal"></div>
      )}
      {e.triggers && !props.proposal && !props.attempt ? (
        <details>
          <summary>Edit the confirmed triggers</summary>
          <TriggerConfirmForm id={e.id} revision={e.revision} files={e.triggers.files} keywords={e.triggers.keywords} />
        </details>
      ) : null}
    </section>
  );
}

const OPERATION_LABEL: Record<LifecycleOperation, string> = {
  publish: "Publish",
  activate: "Activate",
  deactivate: "Deactivate",
  reactivate: "Reactivate",
};
const OPERATION_HELP: Record<LifecycleOperation, string> = {
  publish: "Snapshots the working version into a new immutable version.",
  activate: "Serves the latest published version to the organization's projects that install it.",
  deactivate: "Stops serving it (reactivate serves it again; recorded resolutions keep their version).",
  reactivate: "Serves the latest published version again.",
};

/** A version as its author wrote it (`version: 1.0.0`), with the publication's number beside it. */
export function versionLabel(declared: string | null | undefined, publication: number): string {
  return declared ? `${declared} (publication ${publication})` : `publication ${publication}`;
}

/** One lifecycle button: a form to its route (`serve`: publish and serve in one step). */
function OperationForm(props: { e: ExpertiseDetail; op: LifecycleOperation; label: string; help: string; serve?: boolean; main: boolean }) {
  const { e, op } = props;
  return (
    <form method="post" action={`${ROUTE}/${e.id}/${op}`} hx-post={`${ROUTE}/${e.id}/${op}`} hx-swap="none">
      <input type="hidden" name="return" value={pageOf(e.id)} />
      {op === "publish" ? <input type="hidden" name="expectedRevision" value={String(e.revision)} /> : null}
      {props.serve ? <input type="hidden" name="serve" value="true" /> : null}
      {op === "publish" && e.verification.content.length > 0 ? (
        <label class="acknowledge">
          <input type="checkbox" name="acknowledgeContent" value="true" required /> I read the {e.verification.content.length} content
          finding{e.verification.content.length === 1 ? "" : "s"} beside their lines
        </label>
      ) : null}
      <button type="submit" class={props.main ? undefined : "secondary"} title={props.help}>
        {props.label}
      </button>
    </form>
  );
}

/** The buttons of the lifecycle, the main one first: publishing is offered only while the working version is not published. */
function operations(e: ExpertiseDetail): { op: LifecycleOperation; label: string; help: string; serve?: boolean }[] {
  const out: { op: LifecycleOperation; label: string; help: string; serve?: boolean }[] = [];
  const canPublish = e.allowedOperations.includes("publish") && (e.unpublishedChanges || e.publishedVersion === 0);
  const served = e.status === "active";
  if (canPublish && !served)
    out.push({
      op: "publish",
      label: `Publish and serve`,
      help: "Publishes revision " + e.revision + " and serves it at once.",
      serve: true,
    });
  if (canPublish)
    out.push({
      op: "publish",
      label: served ? `Publish revision ${e.revision}` : "Publish only",
      help: served ? "Publishes it; an active expertise serves the new version at once." : `${OPERATION_HELP.publish} Not served yet.`,
    });
  for (const op of e.allowedOperations) if (op !== "publish") out.push({ op, label: OPERATION_LABEL[op], help: OPERATION_HELP[op] });
  return out;
}

/** The lifecycle operations possible from the current status, each a form to its route. */
export function LifecycleSection(props: { e: ExpertiseDetail }) {
  const e = props.e;
  const declaredOf = (n: number) => e.versions.find((v) => v.version === n)?.declaredVersion;
  const ops = operations(e);
  return (
    <section class="card" id="lifecycle" aria-labelledby="lifecycle-h">
      <h2 id="lifecycle-h">Publication and lifecycle</h2>
      <p>
        Status <StatusTag status={e.status} />
        {e.serving
          ? ` · serving version ${versionLabel(declaredOf(e.serving), e.serving)}`
          : e.publishedVersion > 0
            ? ` · latest version ${versionLabel(declaredOf(e.publishedVersion), e.publishedVersion)}, not served`
            : " · never published"}
      </p>
      {e.publishedVersion > 0 && !e.unpublishedChanges ? (
        <p class="muted small">The working version (revision {e.revision}) is the latest published version: nothing new to publish.</p>
      ) : e.publishedVersion > 0 ? (
        <p class="small">Revision {e.revision} has changes that are not published yet.</p>
      ) : null}
      {ops.some((o) => o.op === "publish") && !e.verification.publishable ? (
        <p class="muted small">
          Publication will be refused until{" "}
          {[!e.verification.valid ? "the check below passes" : null, !e.verification.triggersConfirmed ? "triggers are confirmed" : null]
            .filter(Boolean)
            .join(" and ")}
          .
        </p>
      ) : null}
      <div class="actions-row">
        {ops.map((o, i) => (
          <OperationForm e={e} op={o.op} label={o.label} help={o.help} serve={o.serve} main={i === 0 && o.op !== "deactivate"} />
        ))}
      </div>
      <ul class="small muted">
        {ops.map((o) => (
          <li>
            {o.label}: {o.help}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Published versions, newest first, with their dates. */
export function VersionsSection(props: { e: ExpertiseDetail }) {
  const versions = [...props.e.versions].reverse();
  return (
    <section class="card" id="versions" aria-labelledby="versions-h">
      <h2 id="versions-h">Versions</h2>
      {versions.length === 0 ? (
        <p class="muted">No version yet: publish the working version to create the first one.</p>
      ) : (
        <DataTable caption="Published versions, newest first" columns={["Version", "Published", "By", "Files", "Digest"]}>
          {versions.map((v) => (
            <tr>
              <td>
                {v.declaredVersion ?? "—"} <span class="muted small">(publication {v.version})</span>
                {props.e.serving === v.version ? <span class="tag">serving</span> : null}
              </td>
              <td class="small">{when(v.publishedAt)}</td>
              <td class="small">{v.publishedBy?.email ?? "—"}</td>
              <td class="small">{Object.keys(v.files).length + 1}</td>
              <td class="small">
                <code>{v.contentDigest.slice(0, 19)}…</code>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

/**
 * Deletion with a typed confirmation (the slug), like a project's; without JavaScript it posts to the expertise's page
 * (`?form=delete`), which answers a wrong slug with this card again (`attempt`: what was typed, the problem).
 */
export function DeleteSection(props: { e: ExpertiseDetail; attempt?: { typed: string; error: string } }) {
  const e = props.e;
  return (
    <TypedDeleteForm
      route={`${ROUTE}/${e.id}`}
      action={`${pageOf(e.id)}?form=delete#delete-h`}
      name={e.slug}
      title="Delete this expertise"
      button={`Delete ${e.ref}`}
      typed={props.attempt?.typed}
      error={props.attempt?.error}
    >
      It stops being served and designable at once, and leaves the list. Its slug stays reserved; resolutions that pinned a version still
      read and audit it.
    </TypedDeleteForm>
  );
}
