ALTER TABLE `trace_events` ADD `scope` text;--> statement-breakpoint
-- hand-written: the events recorded before this migration get their route's scope from their kind
-- (each key-route kind has one scope, src/http/keyRoutes.ts); the web routes' events keep none
UPDATE `trace_events` SET `scope` = CASE `kind`
  WHEN 'catalog' THEN 'catalog'
  WHEN 'designable' THEN 'prepare_task'
  WHEN 'prepare_task' THEN 'prepare_task'
  WHEN 'read' THEN 'deepen'
  WHEN 'search' THEN 'deepen'
  WHEN 'validate' THEN 'validate'
  WHEN 'record_validation' THEN 'record_validation'
  WHEN 'install' THEN 'install'
  WHEN 'doctor' THEN 'doctor'
  WHEN 'discover' THEN 'discover'
  WHEN 'skills_list' THEN 'deepen'
  WHEN 'skill_get' THEN 'deepen'
  WHEN 'skill_directory' THEN 'deepen'
  WHEN 'skill_read' THEN 'deepen'
END WHERE `via` IN ('api', 'mcp');
