/**
 * The organization's and the platform's pages, declared once: the header's links (layout.tsx),
 * the organization page's "Settings and analytics" list (tenancy/pages/org.tsx) and the command
 * palette (projects/pages/searchPages.ts) are derived from these lists, and
 * test/web/places.test.ts fails when a served `/org/<page>` or `/admin/<page>` is in none of them.
 */

/** A page of the organization. */
export interface OrgPlace {
  href: string;
  /** Its short name: the header link and the palette. */
  label: string;
  /** Its name in the organization page's list. */
  title: string;
  /** What it is for, in the organization page's list (admin pages). */
  text: string;
  /** Only the organization's owners and admins see it. */
  admin: boolean;
  /** A link in the header for owners and admins. */
  header: boolean;
  /** Other words the palette finds it by. */
  also?: string;
}

export const ORG_PLACES: readonly OrgPlace[] = [
  { href: "/org#members", label: "Members", title: "Members", text: "", admin: false, header: false },
  {
    href: "/org/expertises",
    label: "Expertises",
    title: "Expertises",
    text: "the organization's private talents: write, verify, publish",
    admin: true,
    header: true,
  },
  {
    href: "/org/insights",
    label: "Insights",
    title: "Insights",
    text: "operational health: failed calls, keys to act on, projects at fault",
    admin: true,
    header: true,
  },
  {
    href: "/org/talent-adoption",
    label: "Adoption",
    title: "Talent adoption",
    text: "which talents and expertises the projects use and audit",
    admin: true,
    header: true,
    also: "talent adoption",
  },
  {
    href: "/org/policy",
    label: "Policy",
    title: "Talent policy",
    text: "talents every project must have, and the only ones it may install",
    admin: true,
    header: false,
    also: "talent policy, required and allowed talents",
  },
  {
    href: "/org/sso",
    label: "SSO",
    title: "Single sign-on",
    text: "OIDC or SAML for the organization's e-mail domains",
    admin: true,
    header: false,
    also: "single sign-on",
  },
  {
    href: "/org/mail",
    label: "Mail",
    title: "Mail",
    text: "invitations and other mails that failed or wait to be sent",
    admin: true,
    header: false,
  },
  {
    href: "/org/audit-log",
    label: "Audit log",
    title: "Audit log",
    text: "who changed what in the organization, with a CSV or JSON lines export",
    admin: true,
    header: false,
    also: "who changed what",
  },
];

/** The platform administration's pages (platform administrators only). */
export const ADMIN_PLACES: readonly { href: string; label: string }[] = [
  { href: "/admin", label: "Organizations" },
  { href: "/admin/users", label: "Users" },
  { href: "/admin/security-events", label: "Security events" },
  { href: "/admin/mail", label: "Mail" },
];
