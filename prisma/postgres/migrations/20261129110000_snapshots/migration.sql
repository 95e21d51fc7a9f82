-- AlterTable
ALTER TABLE "project" ADD COLUMN     "currentSnapshotId" TEXT,
ADD COLUMN     "gitRef" TEXT,
ADD COLUMN     "gitTokenCipher" TEXT,
ADD COLUMN     "gitUrl" TEXT;

-- CreateTable
CREATE TABLE "snapshot" (
    "id" TEXT NOT NULL,
    "uid" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "sourceKind" TEXT NOT NULL,
    "sourceLabel" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "progress" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "message" TEXT,
    "commit" TEXT,
    "summary" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "snapshot_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "static_finding" (
    "id" TEXT NOT NULL,
    "snapshotId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "ruleId" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "file" TEXT NOT NULL,
    "startLine" INTEGER NOT NULL,
    "endLine" INTEGER NOT NULL,
    "message" TEXT NOT NULL,

    CONSTRAINT "static_finding_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "snapshot_uid_key" ON "snapshot"("uid");

-- CreateIndex
CREATE INDEX "snapshot_projectId_createdAt_idx" ON "snapshot"("projectId", "createdAt");

-- CreateIndex
CREATE INDEX "static_finding_snapshotId_severity_idx" ON "static_finding"("snapshotId", "severity");

-- CreateIndex
CREATE INDEX "static_finding_snapshotId_file_idx" ON "static_finding"("snapshotId", "file");

-- AddForeignKey
ALTER TABLE "snapshot" ADD CONSTRAINT "snapshot_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "static_finding" ADD CONSTRAINT "static_finding_snapshotId_fkey" FOREIGN KEY ("snapshotId") REFERENCES "snapshot"("id") ON DELETE CASCADE ON UPDATE CASCADE;
