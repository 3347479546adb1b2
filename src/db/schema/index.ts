/** The whole schema, one module per domain. */
export * from "./identity";
export * from "./tenancy";
export * from "./projects";
export * from "./expertises";
export * from "./resolution";
export * from "./activity";
export * from "./oauth";
export * from "./audit";
export * from "./hookRules";
export * from "./evals";
export * from "./shared";
