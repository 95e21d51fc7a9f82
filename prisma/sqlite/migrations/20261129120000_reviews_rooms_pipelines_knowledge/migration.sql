-- CreateTable
CREATE TABLE "review" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "snapshotId" TEXT NOT NULL,
    "createdById" TEXT,
    "engine" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "statusReason" TEXT,
    "scope" TEXT NOT NULL,
    "promptName" TEXT,
    "promptContent" TEXT,
    "provider" TEXT,
    "model" TEXT,
    "connectionUid" TEXT,
    "budget" TEXT NOT NULL,
    "settings" TEXT NOT NULL,
    "progress" REAL NOT NULL DEFAULT 0,
    "report" TEXT,
    "scoreOverall" REAL,
    "findingsCount" INTEGER NOT NULL DEFAULT 0,
    "usage" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "review_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "review_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "review_file" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "reviewId" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "score" REAL NOT NULL,
    "critical" INTEGER NOT NULL DEFAULT 0,
    "high" INTEGER NOT NULL DEFAULT 0,
    "medium" INTEGER NOT NULL DEFAULT 0,
    "low" INTEGER NOT NULL DEFAULT 0,
    "info" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "review_file_reviewId_fkey" FOREIGN KEY ("reviewId") REFERENCES "review" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "review_finding" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "reviewId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "confidence" REAL NOT NULL,
    "category" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "startLine" INTEGER NOT NULL,
    "endLine" INTEGER NOT NULL,
    "evidence" TEXT NOT NULL,
    "explanation" TEXT NOT NULL,
    "suggestedFix" TEXT,
    "diff" TEXT,
    "verification" TEXT NOT NULL DEFAULT 'not_run',
    "source" TEXT NOT NULL DEFAULT 'agent',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "review_finding_reviewId_fkey" FOREIGN KEY ("reviewId") REFERENCES "review" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "finding_dismissal" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "reason" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "finding_dismissal_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "room_event" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "room" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "pipeline_run" (
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
    CONSTRAINT "pipeline_run_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "knowledge_base" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "chunking" TEXT NOT NULL,
    "embedder" TEXT NOT NULL DEFAULT 'hash',
    "status" TEXT NOT NULL DEFAULT 'empty',
    "message" TEXT,
    "progress" REAL NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "knowledge_base_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "knowledge_document" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "knowledgeBaseId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "mime" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "message" TEXT,
    "chunkCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "knowledge_document_knowledgeBaseId_fkey" FOREIGN KEY ("knowledgeBaseId") REFERENCES "knowledge_base" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "review_uid_key" ON "review"("uid");

-- CreateIndex
CREATE INDEX "review_workspaceId_createdAt_idx" ON "review"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "review_projectId_createdAt_idx" ON "review"("projectId", "createdAt");

-- CreateIndex
CREATE INDEX "review_status_idx" ON "review"("status");

-- CreateIndex
CREATE UNIQUE INDEX "review_file_reviewId_path_key" ON "review_file"("reviewId", "path");

-- CreateIndex
CREATE INDEX "review_finding_projectId_fingerprint_idx" ON "review_finding"("projectId", "fingerprint");

-- CreateIndex
CREATE INDEX "review_finding_reviewId_severity_idx" ON "review_finding"("reviewId", "severity");

-- CreateIndex
CREATE UNIQUE INDEX "review_finding_reviewId_fingerprint_key" ON "review_finding"("reviewId", "fingerprint");

-- CreateIndex
CREATE UNIQUE INDEX "finding_dismissal_projectId_fingerprint_key" ON "finding_dismissal"("projectId", "fingerprint");

-- CreateIndex
CREATE UNIQUE INDEX "room_event_room_seq_key" ON "room_event"("room", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_run_uid_key" ON "pipeline_run"("uid");

-- CreateIndex
CREATE INDEX "pipeline_run_workspaceId_createdAt_idx" ON "pipeline_run"("workspaceId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_base_uid_key" ON "knowledge_base"("uid");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_base_workspaceId_name_key" ON "knowledge_base"("workspaceId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_document_uid_key" ON "knowledge_document"("uid");

-- CreateIndex
CREATE INDEX "knowledge_document_knowledgeBaseId_createdAt_idx" ON "knowledge_document"("knowledgeBaseId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_document_knowledgeBaseId_sha256_key" ON "knowledge_document"("knowledgeBaseId", "sha256");
