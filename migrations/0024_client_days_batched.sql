-- Hand-written. talent_client_days' served counts are no longer kept by a trigger on each trace event (ten upserts per
-- prepare_task event, one per designated talent: ~23 µs of the writer thread's CPU per prepare-task): the journal counts a
-- batch's prepare_task events in one statement per author, before it inserts them (src/journal/clientDays.ts), in the
-- batch's transaction. The audit trigger stays.
DROP TRIGGER IF EXISTS `talent_client_days_served`;
