CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"tools" text NOT NULL,
	"key_hash" text NOT NULL,
	"created_by" text NOT NULL,
	"expires_at" bigint,
	"revoked_at" bigint,
	"last_used_at" bigint,
	"created_at" bigint NOT NULL,
	"automation" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"at" bigint NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text NOT NULL,
	"actor_label" text NOT NULL,
	"action" text NOT NULL,
	"object_kind" text NOT NULL,
	"object_id" text NOT NULL,
	"before" text,
	"after" text
);
--> statement-breakpoint
CREATE TABLE "content_blobs" (
	"digest" text PRIMARY KEY NOT NULL,
	"content" text NOT NULL,
	"size" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "designation_items" (
	"designation_id" text NOT NULL,
	"position" bigint NOT NULL,
	"project_id" text NOT NULL,
	"talent_id" text NOT NULL,
	"kind" text NOT NULL,
	"version" text NOT NULL,
	"digest" text NOT NULL,
	"definition_digest" text NOT NULL,
	"files" text NOT NULL,
	"expertise_id" text,
	CONSTRAINT "designation_items_designation_id_position_pk" PRIMARY KEY("designation_id","position")
);
--> statement-breakpoint
CREATE TABLE "email_verifications" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"email" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "evals" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"uploaded_by" text NOT NULL,
	"runs_per_arm" bigint NOT NULL,
	"tasks" bigint NOT NULL,
	"runs" bigint NOT NULL,
	"summary" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "expertise_versions" (
	"expertise_id" text NOT NULL,
	"version" bigint NOT NULL,
	"content_digest" text NOT NULL,
	"files" text NOT NULL,
	"triggers" text NOT NULL,
	"published_by" text,
	"published_at" bigint NOT NULL,
	CONSTRAINT "expertise_versions_expertise_id_version_pk" PRIMARY KEY("expertise_id","version")
);
--> statement-breakpoint
CREATE TABLE "expertises" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"slug" text NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"revision" bigint DEFAULT 1 NOT NULL,
	"working_content" text NOT NULL,
	"working_files" text NOT NULL,
	"triggers" text,
	"triggers_confirmed_at" bigint,
	"published_version" bigint DEFAULT 0 NOT NULL,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"deleted_at" bigint
);
--> statement-breakpoint
CREATE TABLE "external_accounts" (
	"provider" text NOT NULL,
	"provider_user_id" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "installed_talents" (
	"project_id" text NOT NULL,
	"talent_id" text NOT NULL,
	"kind" text NOT NULL,
	"enabled" integer DEFAULT 1 NOT NULL,
	"installed_by" text,
	"installed_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "installed_talents_project_id_talent_id_pk" PRIMARY KEY("project_id","talent_id")
);
--> statement-breakpoint
CREATE TABLE "invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text DEFAULT 'member' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"invited_by" text,
	"expires_at" bigint NOT NULL,
	"accepted_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "key_tombstones" (
	"key_hash" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"project_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"created_by" text NOT NULL,
	"expires_at" bigint,
	"deleted_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text,
	"kind" text DEFAULT 'other' NOT NULL,
	"to_address" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"html" text,
	"sensitive" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint DEFAULT 0 NOT NULL,
	"claimed_at" bigint,
	"created_at" bigint NOT NULL,
	"sent_at" bigint,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "members" (
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text DEFAULT 'member' NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "members_organization_id_user_id_pk" PRIMARY KEY("organization_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "oauth_clients" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"redirect_uris" text NOT NULL,
	"metadata" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_used_at" bigint,
	"secret_hash" text
);
--> statement-breakpoint
CREATE TABLE "oauth_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"user_id" text NOT NULL,
	"project_id" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"code_challenge" text NOT NULL,
	"scopes" text NOT NULL,
	"resource" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"token_hash" text NOT NULL,
	"family_id" text NOT NULL,
	"client_id" text NOT NULL,
	"user_id" text NOT NULL,
	"project_id" text NOT NULL,
	"scopes" text NOT NULL,
	"resource" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"revoked_at" bigint,
	"rotated_at" bigint,
	"last_used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "org_policies" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"required_talents" text NOT NULL,
	"allowed_talents" text,
	"hook_rules" text DEFAULT '{}' NOT NULL,
	"updated_by" text,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_by" text,
	"status_changed_at" bigint,
	"status_changed_by" text,
	"code_hosting" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "password_resets" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pending_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"provider_user_id" text NOT NULL,
	"user_id" text NOT NULL,
	"organization_id" text,
	"expires_at" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_hook_rules" (
	"project_id" text NOT NULL,
	"rule_id" text NOT NULL,
	"choice" text NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "project_hook_rules_project_id_rule_id_pk" PRIMARY KEY("project_id","rule_id")
);
--> statement-breakpoint
CREATE TABLE "project_relevance" (
	"project_id" text PRIMARY KEY NOT NULL,
	"settings" text NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"repository" text,
	"selection_rev" bigint DEFAULT 0 NOT NULL,
	"context_budget" bigint
);
--> statement-breakpoint
CREATE TABLE "report_results" (
	"report_id" text NOT NULL,
	"talent_id" text NOT NULL,
	"kind" text NOT NULL,
	"verdict" text NOT NULL,
	"evidence" text NOT NULL,
	"missing" text NOT NULL,
	"note" text,
	CONSTRAINT "report_results_report_id_talent_id_pk" PRIMARY KEY("report_id","talent_id")
);
--> statement-breakpoint
CREATE TABLE "reports" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"resolution_id" text NOT NULL,
	"submission_id" text NOT NULL,
	"payload_digest" text NOT NULL,
	"response" text NOT NULL,
	"author_type" text NOT NULL,
	"author_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"signature" text,
	"issuer" text
);
--> statement-breakpoint
CREATE TABLE "resolution_hours" (
	"project_id" text NOT NULL,
	"hour" bigint NOT NULL,
	"resolutions" bigint DEFAULT 0 NOT NULL,
	"reports" bigint DEFAULT 0 NOT NULL,
	"pass" bigint DEFAULT 0 NOT NULL,
	"fail" bigint DEFAULT 0 NOT NULL,
	"not_applicable" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "resolution_hours_project_id_hour_pk" PRIMARY KEY("project_id","hour")
);
--> statement-breakpoint
CREATE TABLE "resolutions" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"language" text,
	"tokens" bigint NOT NULL,
	"catalog_digest" text NOT NULL,
	"author_type" text NOT NULL,
	"author_id" text NOT NULL,
	"via" text NOT NULL,
	"created_at" bigint NOT NULL,
	"designation_id" text DEFAULT '' NOT NULL,
	"attestation" text,
	"signature" text,
	"issuer" text,
	"claims" text
);
--> statement-breakpoint
CREATE TABLE "rule_finding_days" (
	"project_id" text NOT NULL,
	"day" bigint NOT NULL,
	"talent_id" text NOT NULL,
	"rule_id" text NOT NULL,
	"client" text NOT NULL,
	"served" bigint NOT NULL,
	"findings" bigint DEFAULT 0 NOT NULL,
	"reports" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "rule_finding_days_project_id_day_talent_id_rule_id_client_served_pk" PRIMARY KEY("project_id","day","talent_id","rule_id","client","served")
);
--> statement-breakpoint
CREATE TABLE "security_events" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"user_id" text,
	"email" text,
	"ip" text,
	"user_agent" text,
	"detail" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"active_organization_id" text,
	"expires_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	"user_agent" text,
	"ip" text
);
--> statement-breakpoint
CREATE TABLE "setup_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "specializations" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"talent_ids" text NOT NULL,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sso_connections" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"protocol" text NOT NULL,
	"config" text NOT NULL,
	"enforce" integer DEFAULT 0 NOT NULL,
	"enabled" integer DEFAULT 0 NOT NULL,
	"enterprise_grant" integer DEFAULT 0 NOT NULL,
	"tested_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sso_domains" (
	"organization_id" text NOT NULL,
	"domain" text NOT NULL,
	"token" text DEFAULT '' NOT NULL,
	"verified_at" bigint,
	"verified_by" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "sso_domains_organization_id_domain_pk" PRIMARY KEY("organization_id","domain")
);
--> statement-breakpoint
CREATE TABLE "sso_nonces" (
	"kind" text NOT NULL,
	"id" text NOT NULL,
	"organization_id" text,
	"value" text DEFAULT '' NOT NULL,
	"expires_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "sso_nonces_kind_id_pk" PRIMARY KEY("kind","id")
);
--> statement-breakpoint
CREATE TABLE "talent_client_days" (
	"project_id" text NOT NULL,
	"day" bigint NOT NULL,
	"talent_id" text NOT NULL,
	"client" text NOT NULL,
	"served" bigint DEFAULT 0 NOT NULL,
	"audited" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "talent_client_days_project_id_day_talent_id_client_pk" PRIMARY KEY("project_id","day","talent_id","client")
);
--> statement-breakpoint
CREATE TABLE "talent_days" (
	"project_id" text NOT NULL,
	"talent_id" text NOT NULL,
	"day" bigint NOT NULL,
	"version" text NOT NULL,
	"expertise_id" text,
	"designated" bigint DEFAULT 0 NOT NULL,
	"audited" bigint DEFAULT 0 NOT NULL,
	"first_at" bigint NOT NULL,
	"last_at" bigint NOT NULL,
	"pass" bigint DEFAULT 0 NOT NULL,
	"fail" bigint DEFAULT 0 NOT NULL,
	"not_applicable" bigint DEFAULT 0 NOT NULL,
	"latest_pass" bigint DEFAULT 0 NOT NULL,
	"latest_fail" bigint DEFAULT 0 NOT NULL,
	"latest_not_applicable" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "talent_days_project_id_talent_id_day_version_pk" PRIMARY KEY("project_id","talent_id","day","version")
);
--> statement-breakpoint
CREATE TABLE "trace_events" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"kind" text NOT NULL,
	"via" text NOT NULL,
	"author_type" text NOT NULL,
	"author_id" text NOT NULL,
	"author_name" text NOT NULL,
	"client" text,
	"talents_entered" text NOT NULL,
	"talents_left" text NOT NULL,
	"resolution_id" text,
	"status" bigint NOT NULL,
	"duration_ms" bigint NOT NULL,
	"detail" text,
	"created_at" bigint NOT NULL,
	"run_id" text,
	"scope" text
);
--> statement-breakpoint
CREATE TABLE "trace_hours" (
	"project_id" text NOT NULL,
	"hour" bigint NOT NULL,
	"kind" text NOT NULL,
	"client" text NOT NULL,
	"client_null" bigint NOT NULL,
	"events" bigint NOT NULL,
	"failed" bigint NOT NULL,
	CONSTRAINT "trace_hours_project_id_hour_kind_client_client_null_pk" PRIMARY KEY("project_id","hour","kind","client","client_null")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"password_hash" text,
	"role" text DEFAULT 'user' NOT NULL,
	"email_verified_at" bigint,
	"disabled_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "designation_items" ADD CONSTRAINT "designation_items_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_verifications" ADD CONSTRAINT "email_verifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evals" ADD CONSTRAINT "evals_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "expertise_versions" ADD CONSTRAINT "expertise_versions_expertise_id_expertises_id_fk" FOREIGN KEY ("expertise_id") REFERENCES "public"."expertises"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "expertises" ADD CONSTRAINT "expertises_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "expertises" ADD CONSTRAINT "expertises_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_accounts" ADD CONSTRAINT "external_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "installed_talents" ADD CONSTRAINT "installed_talents_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_tombstones" ADD CONSTRAINT "key_tombstones_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_client_id_oauth_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."oauth_clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD CONSTRAINT "oauth_tokens_client_id_oauth_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."oauth_clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD CONSTRAINT "oauth_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD CONSTRAINT "oauth_tokens_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_policies" ADD CONSTRAINT "org_policies_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_policies" ADD CONSTRAINT "org_policies_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pending_links" ADD CONSTRAINT "pending_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pending_links" ADD CONSTRAINT "pending_links_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_hook_rules" ADD CONSTRAINT "project_hook_rules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_relevance" ADD CONSTRAINT "project_relevance_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_results" ADD CONSTRAINT "report_results_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_resolution_id_resolutions_id_fk" FOREIGN KEY ("resolution_id") REFERENCES "public"."resolutions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resolution_hours" ADD CONSTRAINT "resolution_hours_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resolutions" ADD CONSTRAINT "resolutions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rule_finding_days" ADD CONSTRAINT "rule_finding_days_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_active_organization_id_organizations_id_fk" FOREIGN KEY ("active_organization_id") REFERENCES "public"."organizations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "specializations" ADD CONSTRAINT "specializations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "specializations" ADD CONSTRAINT "specializations_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD CONSTRAINT "sso_connections_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_domains" ADD CONSTRAINT "sso_domains_organization_id_sso_connections_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."sso_connections"("organization_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_nonces" ADD CONSTRAINT "sso_nonces_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "talent_client_days" ADD CONSTRAINT "talent_client_days_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "talent_days" ADD CONSTRAINT "talent_days_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trace_events" ADD CONSTRAINT "trace_events_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trace_hours" ADD CONSTRAINT "trace_hours_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_uq" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_project_idx" ON "api_keys" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "audit_entries_org_idx" ON "audit_entries" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "audit_entries_at_idx" ON "audit_entries" USING btree ("at");--> statement-breakpoint
CREATE UNIQUE INDEX "designation_items_talent_uq" ON "designation_items" USING btree ("designation_id","talent_id");--> statement-breakpoint
CREATE INDEX "designation_items_project_idx" ON "designation_items" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "email_verifications_user_idx" ON "email_verifications" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "evals_project_created" ON "evals" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "expertise_versions_exp_idx" ON "expertise_versions" USING btree ("expertise_id");--> statement-breakpoint
CREATE UNIQUE INDEX "expertises_org_slug_uq" ON "expertises" USING btree ("organization_id","slug");--> statement-breakpoint
CREATE UNIQUE INDEX "external_accounts_pk" ON "external_accounts" USING btree ("provider","provider_user_id");--> statement-breakpoint
CREATE INDEX "invitations_org_idx" ON "invitations" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "mail_outbox_due_idx" ON "mail_outbox" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "mail_outbox_org_idx" ON "mail_outbox" USING btree ("organization_id","status");--> statement-breakpoint
CREATE INDEX "members_user_idx" ON "members" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_tokens_hash_uq" ON "oauth_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "oauth_tokens_family_idx" ON "oauth_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_slug_uq" ON "organizations" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "password_resets_user_idx" ON "password_resets" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "pending_links_user_idx" ON "pending_links" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "projects_org_idx" ON "projects" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "reports_submission_uq" ON "reports" USING btree ("project_id","submission_id");--> statement-breakpoint
CREATE INDEX "reports_resolution_idx" ON "reports" USING btree ("resolution_id");--> statement-breakpoint
CREATE INDEX "reports_project_created_idx" ON "reports" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "resolutions_project_idx" ON "resolutions" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "security_events_created_idx" ON "security_events" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_token_uq" ON "sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "specializations_org_idx" ON "specializations" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sso_domains_verified_uq" ON "sso_domains" USING btree ("domain") WHERE "sso_domains"."verified_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "sso_domains_domain_idx" ON "sso_domains" USING btree ("domain");--> statement-breakpoint
CREATE INDEX "sso_nonces_expires_idx" ON "sso_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "trace_events_project_id_idx" ON "trace_events" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "trace_events_resolution_idx" ON "trace_events" USING btree ("resolution_id","kind","status") WHERE resolution_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "trace_events_summary_idx" ON "trace_events" USING btree ("project_id",("created_at" / 3600000),"kind","client","status","created_at");--> statement-breakpoint
CREATE INDEX "trace_events_failed_idx" ON "trace_events" USING btree ("project_id","created_at") WHERE status >= 400;--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_uq" ON "users" USING btree ("email");