import { defineConfig } from "drizzle-kit";

// The PostgreSQL migrations, from the schema derived from the SQLite one (src/db/schema-pg);
// `npm run db:generate:pg` runs it and embeds the result (migrations-pg/index.ts).
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema-pg/index.ts",
  out: "./migrations-pg",
});
