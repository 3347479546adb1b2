/**
 * The questions of the destructive actions, one text for both ways of asking: the page's
 * `hx-confirm` (a browser dialog, with JavaScript) and the server's confirmation page (a form
 * posted without JavaScript; http/methodOverride.ts `requireConfirmation`).
 */
import type { Confirmation } from "../http/methodOverride";

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

export const confirmations = {
  uninstall: (talentId: string): Confirmation => ({ question: `Uninstall ${talentId} from this project?`, label: `Uninstall ${talentId}` }),
  /** Disabling a talent that enabled talents of the project need (docs/design.md "Risky selection changes name what they break"). */
  disableNeeded: (talentId: string, dependents: readonly string[]): Confirmation => ({
    question: `${talentId} is needed by ${listed(dependents)}. Disable it anyway?`,
    label: `Disable ${talentId} anyway`,
    fields: { enabled: "false" },
    target: "#installed",
  }),
  /** Uninstalling a talent that enabled talents of the project need. */
  uninstallNeeded: (talentId: string, dependents: readonly string[]): Confirmation => ({
    question: `${talentId} is needed by ${listed(dependents)}. Uninstall it anyway?`,
    label: `Uninstall ${talentId} anyway`,
    target: "#installed",
  }),
  revokeKey: (name: string): Confirmation => ({
    question: `Revoke the key “${name}”? Calls with it fail at once.`,
    label: `Revoke “${name}”`,
  }),
  rotateAutomationKey: (): Confirmation => ({
    question:
      "Rotate the automation key? A new key is made and the current one stops working at once: hooks and CI fail until the CI secret TALENTD_KEY is replaced with the new value.",
    label: "Rotate the automation key",
  }),
  leave: (orgName: string): Confirmation => ({
    question: `Leave ${orgName}? You lose access to its projects at once, and your keys of its projects stop working.`,
    label: `Leave ${orgName}`,
  }),
  removeMember: (email: string, orgName: string): Confirmation => ({
    question: `Remove ${email} from ${orgName}? They lose access at once and their keys stop working.`,
    label: `Remove ${email}`,
  }),
  revokeInvitation: (email: string): Confirmation => ({
    question: `Revoke the invitation of ${email}? Its link stops working.`,
    label: `Revoke the invitation of ${email}`,
  }),
  clearCodeHosting: (): Confirmation => ({
    question: "Clear the code hosting? Evidence is no longer linked to the repositories.",
    label: "Clear the code hosting",
  }),
  removeSso: (): Confirmation => ({
    question: "Remove single sign-on? People of these domains will sign in with passwords again.",
    label: "Remove single sign-on",
  }),
  disableUser: (email: string): Confirmation => ({
    question: `Disable ${email}? They are signed out everywhere and cannot sign in until enabled again.`,
    label: `Disable ${email}`,
  }),
  promoteUser: (email: string): Confirmation => ({
    question: `Make ${email} a platform administrator? They can then approve organizations and manage every account.`,
    label: `Promote ${email}`,
  }),
  demoteUser: (email: string): Confirmation => ({
    question: `Take the platform administrator role from ${email}?`,
    label: `Demote ${email}`,
  }),
  removeUser: (email: string): Confirmation => ({
    question: `Remove ${email}? Their account, sessions, keys and memberships are deleted; this cannot be undone.`,
    label: `Remove ${email}`,
  }),
};
