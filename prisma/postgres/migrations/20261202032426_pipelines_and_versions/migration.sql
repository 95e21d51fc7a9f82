-- AlterTable
ALTER TABLE "pipeline_run" ADD COLUMN     "dataset" TEXT,
ADD COLUMN     "galleryKey" TEXT,
ADD COLUMN     "pipelineId" TEXT,
ADD COLUMN     "pipelineVersion" INTEGER;

-- CreateTable
CREATE TABLE "pipeline" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "pipeline_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pipeline_version" (
    "id" TEXT NOT NULL,
    "pipelineId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "parameters" TEXT NOT NULL DEFAULT '{}',
    "valid" BOOLEAN NOT NULL,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "message" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pipeline_version_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_uid_key" ON "pipeline"("uid");

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_workspaceId_name_key" ON "pipeline"("workspaceId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_version_pipelineId_version_key" ON "pipeline_version"("pipelineId", "version");

-- CreateIndex
CREATE INDEX "pipeline_run_pipelineId_createdAt_idx" ON "pipeline_run"("pipelineId", "createdAt");

-- AddForeignKey
ALTER TABLE "pipeline_run" ADD CONSTRAINT "pipeline_run_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "pipeline"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pipeline" ADD CONSTRAINT "pipeline_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pipeline_version" ADD CONSTRAINT "pipeline_version_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "pipeline"("id") ON DELETE CASCADE ON UPDATE CASCADE;
