/**
 * Every action answers (docs/design.md "Every action answers"): the layout's `role="status"`
 * line says what the last change did. htmx gets it swapped in beside the route's fragment
 * (`statusOob`); a form posted without JavaScript, and an htmx change that reloads or redirects,
 * carry it to the next page in a short-lived signed cookie (`statusCookie`), which that page's
 * answer writes into the layout's empty line and clears (`withStatus`).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { cookieValue } from "../http/cookies";

/** The cookie carrying one status message to the next page (a minute at most). */
export const STATUS_COOKIE = "talentd_status";
/** The layout's empty status line, as the layout writes it (ui/layout.tsx). */
export const STATUS_SLOT = '<div id="action-status" role="status" class="status-line"></div>';

/** Signs the messages of this process: a cookie set by another process, or forged, is dropped. */
const KEY = randomBytes(32);
const mac = (text: string): Buffer => createHmac("sha256", KEY).update(text).digest();

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The message's HTML inside the status line. */
const messageHtml = (message: string): string => `<p class="status">${escapeHtml(message)}</p>`;

/** The layout's status line already saying `message` (a page that itself answers a change, e.g. a form re-rendered after success). */
export function filledStatusSlot(message: string): string {
  return STATUS_SLOT.replace("></div>", `>${messageHtml(message)}</div>`);
}

/** What htmx swaps into the layout's status line beside a fragment (out of band, its content only, so it is announced). */
export function statusOob(message: string): string {
  return `<div id="action-status" hx-swap-oob="innerHTML">${messageHtml(message)}</div>`;
}

/**
 * What htmx swaps into the layout's #flash beside a change's fragment: nothing, so a refusal shown before the change
 * succeeded does not stay on screen beside its success (docs/design.md "Form refusals").
 */
export const FLASH_CLEARED = '<div id="flash" hx-swap-oob="innerHTML"></div>';

/** The Set-Cookie header carrying `message` to the next page of this browser. */
export function statusCookie(message: string, request: Request): string {
  const value = Buffer.from(message.slice(0, 500), "utf8").toString("base64url");
  const secure = new URL(request.url).protocol === "https:" ? "; Secure" : "";
  return `${STATUS_COOKIE}=${value}.${mac(value).toString("base64url")}; Path=/; Max-Age=60; HttpOnly; SameSite=Lax${secure}`;
}

/** The message a request carries in its status cookie, if it is this process's and intact. */
export function statusOf(request: Request): string | null {
  const raw = cookieValue(request, STATUS_COOKIE);
  const dot = raw?.lastIndexOf(".") ?? -1;
  if (!raw || dot < 1) return null;
  const value = raw.slice(0, dot);
  const given = Buffer.from(raw.slice(dot + 1), "base64url");
  const want = mac(value);
  if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
  return Buffer.from(value, "base64url").toString("utf8");
}

/**
 * A page's answer with the message of the request's status cookie written into its status line,
 * and the cookie cleared; any other answer of a request carrying the cookie is left as it is.
 */
export async function withStatus(request: Request, response: Response): Promise<Response> {
  if (!(response.headers.get("content-type") ?? "").startsWith("text/html")) return response;
  const raw = cookieValue(request, STATUS_COOKIE);
  if (!raw) return response;
  const message = statusOf(request);
  const html = await response.text();
  const headers = new Headers(response.headers);
  headers.append("set-cookie", `${STATUS_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
  const filled = message ? html.replace(STATUS_SLOT, filledStatusSlot(message)) : html;
  return new Response(filled, { status: response.status, headers });
}
