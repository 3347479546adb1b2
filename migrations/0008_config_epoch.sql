-- Hand-written (drizzle-kit does not generate triggers): one counter that every change to the
-- configuration (every table but the activity log: src/db/epoch.ts) bumps, by any connection or
-- process, so the caches of keys, sessions, projects and selections are kept across the
-- service's own activity commits (a resolution, a report, trace events) and still dropped by
-- any other change (issue 19).
CREATE TABLE `config_epoch` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`epoch` integer NOT NULL
);--> statement-breakpoint
INSERT INTO `config_epoch` (`id`, `epoch`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `api_keys_epoch_insert` AFTER INSERT ON `api_keys` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_epoch_update` AFTER UPDATE ON `api_keys` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_epoch_delete` AFTER DELETE ON `api_keys` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expertise_versions_epoch_insert` AFTER INSERT ON `expertise_versions` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expertise_versions_epoch_update` AFTER UPDATE ON `expertise_versions` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expertise_versions_epoch_delete` AFTER DELETE ON `expertise_versions` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expertises_epoch_insert` AFTER INSERT ON `expertises` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expertises_epoch_update` AFTER UPDATE ON `expertises` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `expertises_epoch_delete` AFTER DELETE ON `expertises` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `external_accounts_epoch_insert` AFTER INSERT ON `external_accounts` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `external_accounts_epoch_update` AFTER UPDATE ON `external_accounts` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `external_accounts_epoch_delete` AFTER DELETE ON `external_accounts` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `installed_talents_epoch_insert` AFTER INSERT ON `installed_talents` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `installed_talents_epoch_update` AFTER UPDATE ON `installed_talents` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `installed_talents_epoch_delete` AFTER DELETE ON `installed_talents` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invitations_epoch_insert` AFTER INSERT ON `invitations` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invitations_epoch_update` AFTER UPDATE ON `invitations` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invitations_epoch_delete` AFTER DELETE ON `invitations` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `key_tombstones_epoch_insert` AFTER INSERT ON `key_tombstones` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `key_tombstones_epoch_update` AFTER UPDATE ON `key_tombstones` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `key_tombstones_epoch_delete` AFTER DELETE ON `key_tombstones` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `members_epoch_insert` AFTER INSERT ON `members` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `members_epoch_update` AFTER UPDATE ON `members` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `members_epoch_delete` AFTER DELETE ON `members` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `oauth_clients_epoch_insert` AFTER INSERT ON `oauth_clients` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `oauth_clients_epoch_update` AFTER UPDATE ON `oauth_clients` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `oauth_clients_epoch_delete` AFTER DELETE ON `oauth_clients` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `oauth_codes_epoch_insert` AFTER INSERT ON `oauth_codes` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `oauth_codes_epoch_update` AFTER UPDATE ON `oauth_codes` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `oauth_codes_epoch_delete` AFTER DELETE ON `oauth_codes` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `oauth_tokens_epoch_insert` AFTER INSERT ON `oauth_tokens` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `oauth_tokens_epoch_update` AFTER UPDATE ON `oauth_tokens` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `oauth_tokens_epoch_delete` AFTER DELETE ON `oauth_tokens` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `organizations_epoch_insert` AFTER INSERT ON `organizations` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `organizations_epoch_update` AFTER UPDATE ON `organizations` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `organizations_epoch_delete` AFTER DELETE ON `organizations` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `password_resets_epoch_insert` AFTER INSERT ON `password_resets` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `password_resets_epoch_update` AFTER UPDATE ON `password_resets` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `password_resets_epoch_delete` AFTER DELETE ON `password_resets` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `project_relevance_epoch_insert` AFTER INSERT ON `project_relevance` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `project_relevance_epoch_update` AFTER UPDATE ON `project_relevance` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `project_relevance_epoch_delete` AFTER DELETE ON `project_relevance` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `projects_epoch_insert` AFTER INSERT ON `projects` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `projects_epoch_update` AFTER UPDATE ON `projects` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `projects_epoch_delete` AFTER DELETE ON `projects` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_epoch_insert` AFTER INSERT ON `sessions` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_epoch_update` AFTER UPDATE ON `sessions` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_epoch_delete` AFTER DELETE ON `sessions` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `setup_tokens_epoch_insert` AFTER INSERT ON `setup_tokens` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `setup_tokens_epoch_update` AFTER UPDATE ON `setup_tokens` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `setup_tokens_epoch_delete` AFTER DELETE ON `setup_tokens` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `specializations_epoch_insert` AFTER INSERT ON `specializations` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `specializations_epoch_update` AFTER UPDATE ON `specializations` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `specializations_epoch_delete` AFTER DELETE ON `specializations` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sso_connections_epoch_insert` AFTER INSERT ON `sso_connections` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sso_connections_epoch_update` AFTER UPDATE ON `sso_connections` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sso_connections_epoch_delete` AFTER DELETE ON `sso_connections` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sso_domains_epoch_insert` AFTER INSERT ON `sso_domains` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sso_domains_epoch_update` AFTER UPDATE ON `sso_domains` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sso_domains_epoch_delete` AFTER DELETE ON `sso_domains` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sso_nonces_epoch_insert` AFTER INSERT ON `sso_nonces` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sso_nonces_epoch_update` AFTER UPDATE ON `sso_nonces` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `sso_nonces_epoch_delete` AFTER DELETE ON `sso_nonces` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `users_epoch_insert` AFTER INSERT ON `users` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `users_epoch_update` AFTER UPDATE ON `users` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `users_epoch_delete` AFTER DELETE ON `users` BEGIN
  UPDATE `config_epoch` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
