-- The views SQLite's migrations create by hand (drizzle-kit declares none): a resolution's items
-- are its designation's (migrations/0009_designations.sql).
CREATE VIEW "resolution_items" AS
  SELECT r."id" AS "resolution_id", d."position", d."talent_id", d."kind", d."version", d."digest", d."definition_digest", d."files", d."expertise_id"
  FROM "resolutions" r JOIN "designation_items" d ON d."designation_id" = r."designation_id";
