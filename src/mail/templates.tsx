/** @jsxImportSource hono/jsx */
/**
 * The mails talentd sends: a plain-text body (what every client shows) and a simple HTML
 * alternative rendered with hono/jsx (so every value is escaped). Links are absolute, from
 * BASE_URL.
 */
import { utcMinute } from "../lib/time";
import type { Child } from "hono/jsx";
import type { Mail } from "./outbox";

function Html(props: { title: string; children?: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>{props.title}</title>
      </head>
      <body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; max-width: 36em;">
        {props.children}
        <p style="color: #666; font-size: 0.9em;">— talentd</p>
      </body>
    </html>
  );
}

const html = (node: unknown): string => "<!doctype html>" + String(node);
const when = (ms: number): string => `${utcMinute(ms)} UTC`;

/** The invitation to join an organization, with its accept link. */
export function invitationMail(p: {
  to: string;
  inviter: string;
  organizationId: string;
  organizationName: string;
  role: string;
  link: string;
  expiresAt: number;
}): Mail {
  const subject = `Join ${p.organizationName} on talentd`;
  return {
    kind: "invitation",
    to: p.to,
    organizationId: p.organizationId,
    subject,
    text:
      `${p.inviter} invites you to the organization "${p.organizationName}" on talentd, as ${p.role}.\n\n` +
      `Accept the invitation: ${p.link}\n\n` +
      `The link expires ${when(p.expiresAt)}. If you did not expect this invitation, ignore this mail.\n`,
    html: html(
      <Html title={subject}>
        <p>
          {p.inviter} invites you to the organization <strong>{p.organizationName}</strong> on talentd, as {p.role}.
        </p>
        <p>
          <a href={p.link}>Accept the invitation</a>
        </p>
        <p>Or open this address: {p.link}</p>
        <p style="color: #666;">The link expires {when(p.expiresAt)}. If you did not expect this invitation, ignore this mail.</p>
      </Html>,
    ),
  };
}

/** The password-reset mail: a single-use link that expires in `minutes`. Sensitive (the link is the secret). */
export function passwordResetMail(p: { to: string; link: string; minutes: number }): Mail {
  const subject = "Reset your talentd password";
  return {
    kind: "password_reset",
    to: p.to,
    sensitive: true,
    subject,
    text:
      `Someone (hopefully you) asked to reset the password of ${p.to} on talentd.\n\n` +
      `Choose a new password: ${p.link}\n\n` +
      `The link works once and expires in ${p.minutes} minutes. If you did not ask for it, ignore this mail: your password stays as it is.\n`,
    html: html(
      <Html title={subject}>
        <p>Someone (hopefully you) asked to reset the password of {p.to} on talentd.</p>
        <p>
          <a href={p.link}>Choose a new password</a>
        </p>
        <p>Or open this address: {p.link}</p>
        <p style="color: #666;">
          The link works once and expires in {p.minutes} minutes. If you did not ask for it, ignore this mail: your password stays as it is.
        </p>
      </Html>,
    ),
  };
}

/** The e-mail verification mail sent at sign-up: a single-use link that expires in `hours`. Sensitive (the link is the secret). */
export function emailVerificationMail(p: { to: string; link: string; hours: number }): Mail {
  const subject = "Confirm your e-mail address on talentd";
  return {
    kind: "email_verification",
    to: p.to,
    sensitive: true,
    subject,
    text:
      `An account was created on talentd with the address ${p.to}.\n\n` +
      `Confirm that it is yours: ${p.link}\n\n` +
      `The link works once and expires in ${p.hours} hours. If you did not create this account, ignore this mail: ` +
      `an address never confirmed is taken back by its holder's first sign-in through their organization.\n`,
    html: html(
      <Html title={subject}>
        <p>An account was created on talentd with the address {p.to}.</p>
        <p>
          <a href={p.link}>Confirm that it is yours</a>
        </p>
        <p>Or open this address: {p.link}</p>
        <p style="color: #666;">
          The link works once and expires in {p.hours} hours. If you did not create this account, ignore this mail.
        </p>
      </Html>,
    ),
  };
}
