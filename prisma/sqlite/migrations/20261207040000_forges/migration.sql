-- CreateTable
CREATE TABLE "forge_installation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "forge" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "account" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "forge_installation_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "forge_repo" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "installationId" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "fullName" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "mode" TEXT NOT NULL DEFAULT 'auto',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "forge_repo_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "forge_installation" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "forge_repo_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "forge_pull" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "repoId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "headRef" TEXT NOT NULL,
    "headSha" TEXT NOT NULL,
    "baseSha" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'open',
    "lastReviewedSha" TEXT,
    "lastReviewUid" TEXT,
    "reviewingSha" TEXT,
    "reviewingFrom" TEXT,
    "summaryCommentId" TEXT,
    "checkRunId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "forge_pull_repoId_fkey" FOREIGN KEY ("repoId") REFERENCES "forge_repo" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "forge_comment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "pullId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "commentId" TEXT NOT NULL,
    "threadId" TEXT,
    "path" TEXT NOT NULL,
    "line" INTEGER NOT NULL,
    "resolvedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "forge_comment_pullId_fkey" FOREIGN KEY ("pullId") REFERENCES "forge_pull" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "forge_delivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "forge" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "forge_installation_workspaceId_idx" ON "forge_installation"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "forge_installation_forge_externalId_key" ON "forge_installation"("forge", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "forge_repo_projectId_key" ON "forge_repo"("projectId");

-- CreateIndex
CREATE UNIQUE INDEX "forge_repo_installationId_externalId_key" ON "forge_repo"("installationId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "forge_pull_repoId_number_key" ON "forge_pull"("repoId", "number");

-- CreateIndex
CREATE UNIQUE INDEX "forge_comment_pullId_fingerprint_key" ON "forge_comment"("pullId", "fingerprint");

-- CreateIndex
CREATE INDEX "forge_delivery_receivedAt_idx" ON "forge_delivery"("receivedAt");

-- CreateIndex
CREATE UNIQUE INDEX "forge_delivery_forge_deliveryId_key" ON "forge_delivery"("forge", "deliveryId");
