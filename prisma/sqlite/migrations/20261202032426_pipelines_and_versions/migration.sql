-- CreateTable
CREATE TABLE "pipeline" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "tags" TEXT NOT NULL DEFAULT '[]',
    "needs" TEXT NOT NULL DEFAULT 'none',
    "forkedFrom" TEXT,
    "source" TEXT NOT NULL,
    "parameters" TEXT NOT NULL DEFAULT '{}',
    "secrets" TEXT,
    "valid" BOOLEAN NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "pipeline_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "pipeline_version" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "pipelineId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "parameters" TEXT NOT NULL DEFAULT '{}',
    "valid" BOOLEAN NOT NULL,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "message" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "pipeline_version_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "pipeline" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_pipeline_run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "workspaceId" TEXT,
    "createdById" TEXT,
    "pipelineName" TEXT NOT NULL,
    "pipelinePath" TEXT NOT NULL,
    "pipelineHash" TEXT NOT NULL,
    "params" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "error" TEXT,
    "outputs" TEXT,
    "memoryFile" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    "pipelineId" TEXT,
    "pipelineVersion" INTEGER,
    "galleryKey" TEXT,
    "dataset" TEXT,
    CONSTRAINT "pipeline_run_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "pipeline_run_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "pipeline" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_pipeline_run" ("createdAt", "createdById", "error", "finishedAt", "id", "memoryFile", "outputs", "params", "pipelineHash", "pipelineName", "pipelinePath", "status", "uid", "workspaceId") SELECT "createdAt", "createdById", "error", "finishedAt", "id", "memoryFile", "outputs", "params", "pipelineHash", "pipelineName", "pipelinePath", "status", "uid", "workspaceId" FROM "pipeline_run";
DROP TABLE "pipeline_run";
ALTER TABLE "new_pipeline_run" RENAME TO "pipeline_run";
CREATE UNIQUE INDEX "pipeline_run_uid_key" ON "pipeline_run"("uid");
CREATE INDEX "pipeline_run_workspaceId_createdAt_idx" ON "pipeline_run"("workspaceId", "createdAt");
CREATE INDEX "pipeline_run_pipelineId_createdAt_idx" ON "pipeline_run"("pipelineId", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_uid_key" ON "pipeline"("uid");

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_workspaceId_name_key" ON "pipeline"("workspaceId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_version_pipelineId_version_key" ON "pipeline_version"("pipelineId", "version");
