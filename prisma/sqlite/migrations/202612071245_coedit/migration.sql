-- CreateTable
CREATE TABLE "coedit_doc" (
    "room" TEXT NOT NULL PRIMARY KEY,
    "snapshot" BLOB NOT NULL,
    "upTo" INTEGER NOT NULL DEFAULT 0,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "editors" TEXT NOT NULL DEFAULT '[]',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "coedit_update" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "room" TEXT NOT NULL,
    "generation" INTEGER NOT NULL,
    "data" BLOB NOT NULL,
    "userId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_pipeline_version" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "pipelineId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "parameters" TEXT NOT NULL DEFAULT '{}',
    "valid" BOOLEAN NOT NULL,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "message" TEXT,
    "createdById" TEXT,
    "editedBy" TEXT NOT NULL DEFAULT '[]',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "pipeline_version_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "pipeline" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_pipeline_version" ("createdAt", "createdById", "errors", "id", "message", "parameters", "pipelineId", "source", "valid", "version") SELECT "createdAt", "createdById", "errors", "id", "message", "parameters", "pipelineId", "source", "valid", "version" FROM "pipeline_version";
DROP TABLE "pipeline_version";
ALTER TABLE "new_pipeline_version" RENAME TO "pipeline_version";
CREATE UNIQUE INDEX "pipeline_version_pipelineId_version_key" ON "pipeline_version"("pipelineId", "version");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "coedit_update_room_id_idx" ON "coedit_update"("room", "id");
