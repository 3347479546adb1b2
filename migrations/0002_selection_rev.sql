ALTER TABLE `projects` ADD `selection_rev` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit does not generate triggers): every change to a project's installed
-- talents bumps projects.selection_rev, so the selection can be cached exactly.
CREATE TRIGGER `installed_talents_rev_insert` AFTER INSERT ON `installed_talents` BEGIN
  UPDATE `projects` SET `selection_rev` = `selection_rev` + 1 WHERE `id` = NEW.`project_id`;
END;--> statement-breakpoint
CREATE TRIGGER `installed_talents_rev_update` AFTER UPDATE ON `installed_talents` BEGIN
  UPDATE `projects` SET `selection_rev` = `selection_rev` + 1 WHERE `id` IN (OLD.`project_id`, NEW.`project_id`);
END;--> statement-breakpoint
CREATE TRIGGER `installed_talents_rev_delete` AFTER DELETE ON `installed_talents` BEGIN
  UPDATE `projects` SET `selection_rev` = `selection_rev` + 1 WHERE `id` = OLD.`project_id`;
END;
