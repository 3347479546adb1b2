-- Hand-written: every bump of the configuration epoch also notifies the channel
-- talentd_config_epoch with the new epoch, delivered to every listening connection when the
-- transaction commits (nothing for one rolled back). Each replica LISTENs (src/db/pgEpoch.ts) and
-- keeps the epoch in memory, so the caches on it hold across replicas (docs/design.md "Several
-- replicas: what is shared"); a replica also reads the row every 500 ms in case a notification
-- was lost with its connection. The function is replaced, not the triggers: the same triggers as
-- SQLite's (test/db/schema-dialects.test.ts).
CREATE OR REPLACE FUNCTION talentd_bump_config_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE e bigint;
BEGIN
  UPDATE "config_epoch" SET "epoch" = "epoch" + 1 WHERE "id" = 1 RETURNING "epoch" INTO e;
  PERFORM pg_notify('talentd_config_epoch', e::text);
  RETURN NULL;
END $$;
