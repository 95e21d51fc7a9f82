-- AlterTable
ALTER TABLE "project" ADD COLUMN "currentSnapshotId" TEXT;
ALTER TABLE "project" ADD COLUMN "gitRef" TEXT;
ALTER TABLE "project" ADD COLUMN "gitTokenCipher" TEXT;
ALTER TABLE "project" ADD COLUMN "gitUrl" TEXT;

-- CreateTable
CREATE TABLE "snapshot" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "sourceKind" TEXT NOT NULL,
    "sourceLabel" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "progress" REAL NOT NULL DEFAULT 0,
    "message" TEXT,
    "commit" TEXT,
    "summary" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    CONSTRAINT "snapshot_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "static_finding" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "snapshotId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "ruleId" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "confidence" REAL NOT NULL,
    "file" TEXT NOT NULL,
    "startLine" INTEGER NOT NULL,
    "endLine" INTEGER NOT NULL,
    "message" TEXT NOT NULL,
    CONSTRAINT "static_finding_snapshotId_fkey" FOREIGN KEY ("snapshotId") REFERENCES "snapshot" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "snapshot_uid_key" ON "snapshot"("uid");

-- CreateIndex
CREATE INDEX "snapshot_projectId_createdAt_idx" ON "snapshot"("projectId", "createdAt");

-- CreateIndex
CREATE INDEX "static_finding_snapshotId_severity_idx" ON "static_finding"("snapshotId", "severity");

-- CreateIndex
CREATE INDEX "static_finding_snapshotId_file_idx" ON "static_finding"("snapshotId", "file");
