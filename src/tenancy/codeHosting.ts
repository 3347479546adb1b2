/**
 * An organization's code hosting (docs/api.md "Code hosting"):
 * `{provider: github|gitlab|bitbucket|other, url, defaultBranch}`, where `url` is the base the
 * organization's repositories live under (`https://github.com/acme`). A project names its
 * repository under it (`projects.repository`), and report evidence `path:line` becomes a link
 * to that line. For `other`, `url` is a template with `{repository}`, `{branch}`, `{path}` and
 * `{line}` (Gitea, Forgejo, an internal viewer…).
 */
import { eq } from "drizzle-orm";
import type { Database, Tx } from "../db/client";
import { organizations } from "../db/schema";
import { validationFailed, type Issue } from "../http/errors";
import { record, type AuditActor } from "../audit/record";

export const CODE_HOSTS = ["github", "gitlab", "bitbucket", "other"] as const;
export type CodeHost = (typeof CODE_HOSTS)[number];

export interface CodeHosting {
  provider: CodeHost;
  url: string;
  defaultBranch: string;
}

const BRANCH = /^[A-Za-z0-9._/-]{1,100}$/;

/** Reads a PUT body; 400 with every problem. */
export function readCodeHosting(body: unknown): CodeHosting {
  const b = (typeof body === "object" && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const issues: Issue[] = [];
  const provider = b.provider;
  if (typeof provider !== "string" || !(CODE_HOSTS as readonly string[]).includes(provider))
    issues.push({ path: "provider", message: `must be one of ${CODE_HOSTS.join(", ")}` });
  let url = typeof b.url === "string" ? b.url.trim().replace(/\/+$/, "") : "";
  try {
    const u = new URL(url.replace(/\{[a-z]+\}/g, "x"));
    if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error();
  } catch {
    issues.push({ path: "url", message: "must be an http(s) URL" });
  }
  if (url.length > 500) issues.push({ path: "url", message: "must be at most 500 characters" });
  if (provider === "other" && !url.includes("{path}"))
    issues.push({ path: "url", message: "for provider other, a template with {path} (and {repository}, {branch}, {line} as needed)" });
  const defaultBranch = b.defaultBranch === undefined ? "main" : b.defaultBranch;
  if (typeof defaultBranch !== "string" || !BRANCH.test(defaultBranch))
    issues.push({ path: "defaultBranch", message: "must be a branch name" });
  for (const k of Object.keys(b))
    if (!["provider", "url", "defaultBranch"].includes(k))
      issues.push({ path: k, message: "is not a code hosting setting (provider, url, defaultBranch)" });
  if (issues.length > 0) throw validationFailed(issues);
  return { provider: provider as CodeHost, url, defaultBranch: defaultBranch as string };
}

export async function getCodeHosting(database: Database, organizationId: string): Promise<CodeHosting | null> {
  const row = await database.get<{ code_hosting: string | null }>("SELECT code_hosting FROM organizations WHERE id = ?", [organizationId]);
  return row?.code_hosting ? (JSON.parse(row.code_hosting) as CodeHosting) : null;
}

export async function setCodeHosting(tx: Tx, organizationId: string, settings: CodeHosting | null, actor: AuditActor): Promise<void> {
  const before =
    (await tx.select({ h: organizations.codeHosting }).from(organizations).where(eq(organizations.id, organizationId)))[0]?.h ?? null;
  await tx
    .update(organizations)
    .set({ codeHosting: settings ? { ...settings } : null, updatedAt: Date.now() })
    .where(eq(organizations.id, organizationId));
  if (JSON.stringify(before) !== JSON.stringify(settings)) {
    await record(tx, {
      organizationId,
      actor,
      action: settings ? "code_hosting.set" : "code_hosting.cleared",
      object: { kind: "organization", id: organizationId },
      before: before ? { codeHosting: before } : null,
      after: settings ? { codeHosting: settings } : null,
    });
  }
}

/** The link to an evidence `path:line` (or `path:line-line`), or null when it cannot be made. */
export function evidenceLink(h: CodeHosting | null, repository: string | null, evidence: string): string | null {
  if (!h || !repository) return null;
  const m = /^([^\s:]+):(\d+)(?:-(\d+))?$/.exec(evidence);
  if (!m) return null;
  const path = m[1]!
    .replace(/^\.?\//, "")
    .split("/")
    .map(encodeURIComponent)
    .join("/");
  const [from, to] = [m[2]!, m[3]];
  const base = `${h.url}/${repository}`;
  const branch = encodeURIComponent(h.defaultBranch);
  switch (h.provider) {
    case "github":
      return `${base}/blob/${branch}/${path}#L${from}${to ? `-L${to}` : ""}`;
    case "gitlab":
      return `${base}/-/blob/${branch}/${path}#L${from}${to ? `-${to}` : ""}`;
    case "bitbucket":
      return `${base}/src/${branch}/${path}#lines-${from}${to ? `:${to}` : ""}`;
    case "other":
      return h.url
        .replaceAll("{repository}", repository)
        .replaceAll("{branch}", branch)
        .replaceAll("{path}", path)
        .replaceAll("{line}", from);
  }
}
