/**
 * The PostgreSQL schema: every table of src/db/schema derived by derive.ts, under the same export
 * names (drizzle-kit reads the named exports: drizzle.pg.config.ts). A table added to
 * src/db/schema and not named here fails test/db/schema-dialects.test.ts.
 */
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import * as sqlite from "../schema";
import { type DerivedTable, derivePgTables } from "./derive";

const derived = derivePgTables((Object.values(sqlite) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable)));
const pg = (t: SQLiteTable): DerivedTable => {
  const table = derived.get(getTableName(t));
  if (!table) throw new Error(`${getTableName(t)} was not derived`);
  return table;
};

export const apiKeys = pg(sqlite.apiKeys);
export const auditEntries = pg(sqlite.auditEntries);
export const contentBlobs = pg(sqlite.contentBlobs);
export const designationItems = pg(sqlite.designationItems);
export const emailVerifications = pg(sqlite.emailVerifications);
export const evals = pg(sqlite.evals);
export const expertiseVersions = pg(sqlite.expertiseVersions);
export const expertises = pg(sqlite.expertises);
export const externalAccounts = pg(sqlite.externalAccounts);
export const installedTalents = pg(sqlite.installedTalents);
export const invitations = pg(sqlite.invitations);
export const keyTombstones = pg(sqlite.keyTombstones);
export const mailOutbox = pg(sqlite.mailOutbox);
export const members = pg(sqlite.members);
export const oauthClients = pg(sqlite.oauthClients);
export const oauthCodes = pg(sqlite.oauthCodes);
export const oauthTokens = pg(sqlite.oauthTokens);
export const orgPolicies = pg(sqlite.orgPolicies);
export const organizations = pg(sqlite.organizations);
export const passwordResets = pg(sqlite.passwordResets);
export const pendingLinks = pg(sqlite.pendingLinks);
export const projectHookRules = pg(sqlite.projectHookRules);
export const projectRelevance = pg(sqlite.projectRelevance);
export const projects = pg(sqlite.projects);
export const rateCounters = pg(sqlite.rateCounters);
export const reportResults = pg(sqlite.reportResults);
export const reports = pg(sqlite.reports);
export const resolutionHours = pg(sqlite.resolutionHours);
export const resolutions = pg(sqlite.resolutions);
export const ruleFindingDays = pg(sqlite.ruleFindingDays);
export const securityEvents = pg(sqlite.securityEvents);
export const sessions = pg(sqlite.sessions);
export const setupTokens = pg(sqlite.setupTokens);
export const signingKeys = pg(sqlite.signingKeys);
export const specializations = pg(sqlite.specializations);
export const ssoConnections = pg(sqlite.ssoConnections);
export const ssoDomains = pg(sqlite.ssoDomains);
export const ssoNonces = pg(sqlite.ssoNonces);
export const talentClientDays = pg(sqlite.talentClientDays);
export const talentDays = pg(sqlite.talentDays);
export const traceEvents = pg(sqlite.traceEvents);
export const traceHours = pg(sqlite.traceHours);
export const users = pg(sqlite.users);
