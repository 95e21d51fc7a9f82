-- AlterTable
ALTER TABLE "review" ADD COLUMN "connectionName" TEXT;

-- AlterTable
ALTER TABLE "ask_message" ADD COLUMN "connectionUid" TEXT;

-- AlterTable
ALTER TABLE "pipeline_run" ADD COLUMN "modelConnection" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_provider_connection" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "baseUrl" TEXT,
    "model" TEXT,
    "apiKeyCipher" TEXT,
    "apiKeyHint" TEXT,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "provider_connection_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_provider_connection" ("apiKeyCipher", "apiKeyHint", "baseUrl", "createdAt", "id", "model", "name", "provider", "uid", "updatedAt", "workspaceId") SELECT "apiKeyCipher", "apiKeyHint", "baseUrl", "createdAt", "id", "model", "name", "provider", "uid", "updatedAt", "workspaceId" FROM "provider_connection";
DROP TABLE "provider_connection";
ALTER TABLE "new_provider_connection" RENAME TO "provider_connection";
CREATE UNIQUE INDEX "provider_connection_uid_key" ON "provider_connection"("uid");
CREATE UNIQUE INDEX "provider_connection_workspaceId_name_key" ON "provider_connection"("workspaceId", "name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
