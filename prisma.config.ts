// Prisma CLI configuration. The provider (and so the schema, migrations folder and driver adapter)
// follows DATABASE_URL exactly as the app does: unset/file: → SQLite, postgres:// → PostgreSQL.
// `engine: "js"` + an adapter keeps the CLI offline (no schema-engine download).
import { defineConfig } from "prisma/config";
import { loadConfig } from "./server/config.ts";
import { adapterFor } from "./server/db/adapters.ts";

const { db } = loadConfig();

export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: `prisma/${db.provider}/schema.prisma`,
  migrations: { path: `prisma/${db.provider}/migrations` },
  // A short idle timeout so the CLI exits as soon as it is done.
  adapter: async () => adapterFor(db, { idleTimeoutMillis: 200 }),
});
