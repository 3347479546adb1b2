/** @jsxImportSource hono/jsx */
/**
 * The automation key's block (project overview "CI validation and hooks", the Keys tab, the
 * onboarding's connect step): "Create the automation key" while the project has none, then
 * "Rotate", which says what it breaks and asks first — hx-confirm with JavaScript; without it the
 * form posts to the page route (pages/automationKey.tsx), which asks on a page. A new key's value
 * is shown once; only a rotation speaks of the previous key.
 */
import { confirmations } from "../../ui/confirmations";

/** A secret shown once: the value with a copy button and the warning. */
export function OneTimeSecret(props: { label: string; value: string; note?: string }) {
  return (
    <div class="secret" role="status">
      <p>
        <strong>{props.label}</strong> — copy it now: it is shown once and cannot be retrieved again.
      </p>
      <div class="copy-row">
        <code id="secret-value">{props.value}</code>{" "}
        <button type="button" class="secondary small" data-copy="#secret-value">
          Copy
        </button>
      </div>
      {props.note ? <p class="muted small">{props.note}</p> : null}
    </div>
  );
}

/** The page route a form posts to without JavaScript (pages/automationKey.tsx); htmx posts to the JSON route. */
export const automationKeyPage = (projectId: string): string => `/projects/${projectId}/automation-key`;

/** The automation key block: create it, or rotate it (confirmed); after a change, the new value once. */
export function AutomationKey(props: {
  projectId: string;
  /** Whether the project has an active automation key. */
  exists: boolean;
  /** The page to come back to (a path of this site). */
  returnTo?: string;
  created?: { value: string; baseUrl: string; replaced: boolean };
}) {
  const { projectId, exists, created } = props;
  const rotate = exists || created !== undefined;
  const ask = confirmations.rotateAutomationKey();
  return (
    <div id="automation">
      {created ? (
        <OneTimeSecret
          label="Automation key"
          value={created.value}
          note={`Set TALENTD_URL=${created.baseUrl} and TALENTD_KEY to this value in your CI's secrets.${created.replaced ? " The previous automation key no longer works." : ""}`}
        />
      ) : null}
      <form
        method="post"
        action={automationKeyPage(projectId)}
        hx-post={`/web/projects/${projectId}/token`}
        hx-target="#automation"
        hx-swap="outerHTML"
        hx-confirm={rotate ? ask.question : undefined}
      >
        <input type="hidden" name="return" value={props.returnTo ?? `/projects/${projectId}`} />
        <button type="submit" class={rotate ? "secondary" : ""}>
          {rotate ? ask.label : "Create the automation key"}
        </button>{" "}
        <span class="muted small">
          {rotate
            ? "a new key; the current one stops working at once, so the CI secret TALENTD_KEY must be replaced"
            : "scopes prepare_task, validate, deepen, doctor, catalog; its value is shown once"}
        </span>
      </form>
    </div>
  );
}
