ALTER TABLE `reports` ADD `signature` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `issuer` text;--> statement-breakpoint
ALTER TABLE `resolutions` ADD `signature` text;--> statement-breakpoint
ALTER TABLE `resolutions` ADD `issuer` text;