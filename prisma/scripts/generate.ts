/**
 * Writes prisma/<provider>/schema.prisma from prisma/models.prisma and generates both clients into
 * prisma/generated/<provider>. Runs on postinstall; run it again (npm run db:generate) after editing
 * models.prisma, then add a migration per provider (docs/database.md).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const prismaDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const models = readFileSync(path.join(prismaDir, "models.prisma"), "utf8");

const headers = {
  sqlite: `datasource db {
  provider = "sqlite"
  // The real location comes from DATABASE_URL / DATA_DIR through the adapter in prisma.config.ts;
  // the CLI only needs a resolvable URL here.
  url      = "file:./argus.db"
}`,
  postgres: `datasource db {
  provider = "postgresql"
  url      = env("DATABASE_URL")
}`,
} as const;

export function schemaFor(provider: keyof typeof headers): string {
  return `// GENERATED from prisma/models.prisma by prisma/scripts/generate.ts — do not edit.

generator client {
  provider   = "prisma-client-js"
  output     = "../generated/${provider}"
  engineType = "client"
}

${headers[provider]}

${models}`;
}

const onlyWrite = process.argv.includes("--schemas-only");
for (const provider of ["sqlite", "postgres"] as const) {
  const dir = path.join(prismaDir, provider);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "schema.prisma");
  writeFileSync(file, schemaFor(provider));
  if (onlyWrite) continue;
  execFileSync(process.execPath, [prismaCli(), "generate", "--schema", file], {
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      DB_PROVIDER: provider,
      DATABASE_URL: process.env.DATABASE_URL ?? "postgres://localhost/placeholder",
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
    },
  });
  console.log(`prisma: generated the ${provider} client`);
}

function prismaCli(): string {
  return path.join(prismaDir, "..", "node_modules", "prisma", "build", "index.js");
}
