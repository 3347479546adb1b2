/**
 * One error type and a table of codes (docs/design.md "One error model"). Every error body is
 * `{"error": code, "message": sentence, ...details}`.
 */
import { DATABASE_RETRY_AFTER_S } from "../db/unavailable";

export const ERROR_CODES = {
  validation_failed: { status: 400, message: "The request is not valid." },
  designation_required: { status: 400, message: "Designate at least one talent: talentIds must be a non-empty array." },
  unknown_talents: { status: 400, message: "Some talents are unknown or not active in this project." },
  invalid_token: { status: 401, message: "The bearer token is missing, unknown, revoked or expired." },
  unauthenticated: { status: 401, message: "Sign in first." },
  invalid_credentials: { status: 401, message: "E-mail or password is wrong." },
  insufficient_scope: { status: 403, message: "This key does not carry the scope this tool needs." },
  not_a_member: { status: 403, message: "The key's creator is no longer a member of the organization." },
  organization_not_approved: { status: 403, message: "The organization is not approved." },
  forbidden: { status: 403, message: "You are not allowed to do this." },
  account_disabled: { status: 403, message: "This account is disabled: ask a platform administrator." },
  csrf_rejected: { status: 403, message: "Cross-site request refused." },
  no_active_organization: { status: 403, message: "Select or create an organization first." },
  not_found: { status: 404, message: "Not found." },
  invalid_transition: { status: 409, message: "That operation is not possible from the current state." },
  conflict: { status: 409, message: "The resource already exists." },
  domain_unverified: { status: 409, message: "The domain's DNS TXT record was not found: publish it, then verify again." },
  last_owner: { status: 409, message: "An organization keeps at least one owner." },
  last_platform_admin: { status: 409, message: "The platform keeps at least one enabled platform administrator." },
  submission_conflict: { status: 409, message: "This submissionId was already used for a different report." },
  expertise_revision_conflict: { status: 409, message: "The expertise changed since you read it." },
  content_unacknowledged: { status: 409, message: "The content check has findings a person must acknowledge before publishing." },
  required_by_policy: { status: 409, message: "The organization's policy requires this talent: it stays installed and active." },
  not_allowed_by_policy: { status: 409, message: "The organization's policy does not allow this talent in its projects." },
  locked_by_policy: { status: 409, message: "The organization's policy locks this rule: an owner or admin changes it on the policy." },
  selection_conflict: { status: 409, message: "These talents conflict with the project's active selection." },
  request_timeout: { status: 408, message: "The request did not arrive in time." },
  invitation_expired: { status: 410, message: "This invitation has expired." },
  reset_link_invalid: { status: 410, message: "This password-reset link is invalid, expired or already used: ask for a new one." },
  verification_link_invalid: {
    status: 410,
    message: "This verification link is invalid, expired or already used: sign in and ask for a new one.",
  },
  payload_too_large: { status: 413, message: "The request body is too large." },
  unsupported_media_type: { status: 415, message: "Send JSON or form-encoded bodies." },
  misdirected_request: { status: 421, message: "This server answers at its BASE_URL only." },
  rate_limited: { status: 429, message: "Too many attempts; retry later." },
  too_many_connections: { status: 429, message: "Too many requests in progress from this address." },
  internal_error: { status: 500, message: "Something went wrong on our side." },
  not_ready: { status: 503, message: "The service is starting." },
  database_unavailable: { status: 503, message: "The database cannot be reached right now; retry later." },
  storage_full: { status: 507, message: "The server's disk is full: nothing was written; retry later." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** An error meant for the client: status, code, a sentence, and optional details merged into the body. */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message ?? ERROR_CODES[code].message);
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.details = details;
    this.headers = headers;
  }

  /** The JSON body of this error. */
  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.details };
  }
}

/** One field problem of a validation_failed error. */
export interface Issue {
  path: string;
  message: string;
}

/** One issue as a sentence: its message when it names its field first ("tools must be …"), else `path: message`. */
function issueSentence(i: Issue): string {
  return i.path && !i.message.startsWith(`${i.path} `) ? `${i.path}: ${i.message}` : i.message;
}

/** 400 validation_failed listing each bad field. */
export function validationFailed(issues: Issue[], message?: string): AppError {
  return new AppError(
    "validation_failed",
    message ?? (issues.length === 1 ? issueSentence(issues[0]!) : ERROR_CODES.validation_failed.message),
    { issues },
  );
}

/** 404 not_found with a sentence naming what is missing. */
export function notFound(what = "Not found."): AppError {
  return new AppError("not_found", what);
}

/** 503 database_unavailable with Retry-After: the database server cannot be reached (src/db/unavailable.ts). */
export function databaseUnavailable(): AppError {
  const retryAfter = DATABASE_RETRY_AFTER_S;
  return new AppError("database_unavailable", undefined, { retryAfter }, { "retry-after": String(retryAfter) });
}

/** Renders an AppError as a Response with JSON body and extra headers. */
export function errorResponse(err: AppError, requestId?: string): Response {
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8", ...err.headers };
  if (requestId) headers["x-request-id"] = requestId;
  return new Response(JSON.stringify(err.body()), { status: err.status, headers });
}
