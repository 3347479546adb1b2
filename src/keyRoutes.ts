/**
 * Every key route (docs/design.md "One descriptor per key route"), each descriptor beside the
 * handler that serves it: the catalog's, resolution's (the agent loop), the findings report and the
 * evals (activity), the hook rules (projects), the skills. From this one list app.ts builds the
 * OpenAPI document (http/openapi.ts) and mcp/tools.ts the MCP tools; test/http/key-routes.test.ts
 * checks that every registered key route has one descriptor here.
 */
import { EVALS_UPLOAD, FINDINGS_ROUTE, RESOLUTIONS_LIST } from "./activity/describe";
import { CATALOG_KEY_ROUTE } from "./catalog/routes";
import type { KeyRoute } from "./http/keyRoute";
import { HOOK_RULES_READ, HOOK_RULES_WRITE } from "./projects/describe";
import { RESOLUTION_KEY_ROUTES as R } from "./resolution/keyRoutes";
import { SKILLS_KEY_ROUTES } from "./skills/routes";

/** Every key route, in the order of the OpenAPI document and of the MCP tools. */
export const KEY_ROUTE_LIST: KeyRoute[] = [
  CATALOG_KEY_ROUTE,
  R.designable,
  R.prepareTask,
  R.read,
  R.search,
  R.playbook,
  R.reports,
  FINDINGS_ROUTE,
  HOOK_RULES_READ,
  HOOK_RULES_WRITE,
  EVALS_UPLOAD,
  RESOLUTIONS_LIST,
  R.install,
  R.doctor,
  R.discovery,
  ...Object.values(SKILLS_KEY_ROUTES),
];
