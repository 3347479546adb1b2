/**
 * The organization's and the platform's pages as navigation entries: each domain declares its pages'
 * entries beside their handlers (its describe.ts), app.ts collects them once (PLACES, in the order
 * it lists the domains) and hands them in at start (usePlaces). The header's links (layout.tsx), the organization
 * page's "Settings and analytics" list (tenancy/pages/org.tsx) and the command palette
 * (projects/pages/searchPages.ts) read the collected lists (places), and test/web/places.test.ts
 * fails when a served `/org/<page>` or `/admin/<page>` is in none of them.
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

/** A page of the platform administration (platform administrators only). */
export interface AdminPlace {
  href: string;
  label: string;
}

/** Every domain's entries, collected. */
export interface Places {
  org: readonly OrgPlace[];
  admin: readonly AdminPlace[];
}

/**
 * The collected entries. One for the process, as the header's kept renders are (layout.tsx): the
 * lists are code, the same for every app.
 */
const collected: Places = { org: [], admin: [] };

/** The collected entries, as handed in (read here, never changed). */
export const places: Readonly<Places> = collected;

/** Hands in the collected entries: once, when the app is built (app.ts). */
export function usePlaces(all: Places): void {
  Object.assign(collected, all);
}
