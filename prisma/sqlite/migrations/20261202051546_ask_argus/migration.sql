-- CreateTable
CREATE TABLE "ask_thread" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "reviewId" TEXT,
    "fingerprint" TEXT,
    "snapshotId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "context" TEXT,
    "createdById" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ask_thread_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ask_thread_reviewId_fkey" FOREIGN KEY ("reviewId") REFERENCES "review" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ask_message" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "threadId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "authorId" TEXT,
    "questionId" TEXT,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'done',
    "mode" TEXT,
    "details" TEXT,
    "model" TEXT,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" REAL,
    "error" TEXT,
    "chatMessageUid" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    CONSTRAINT "ask_message_threadId_fkey" FOREIGN KEY ("threadId") REFERENCES "ask_thread" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ask_budget" (
    "workspaceId" TEXT NOT NULL PRIMARY KEY,
    "maxTokens" INTEGER,
    "maxCostUsd" REAL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ask_budget_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "team_finding" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "snapshotId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "startLine" INTEGER NOT NULL,
    "endLine" INTEGER NOT NULL,
    "evidence" TEXT NOT NULL,
    "explanation" TEXT NOT NULL,
    "createdById" TEXT NOT NULL,
    "answerUid" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "team_finding_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "ask_thread_uid_key" ON "ask_thread"("uid");

-- CreateIndex
CREATE INDEX "ask_thread_projectId_updatedAt_idx" ON "ask_thread"("projectId", "updatedAt");

-- CreateIndex
CREATE INDEX "ask_thread_reviewId_idx" ON "ask_thread"("reviewId");

-- CreateIndex
CREATE UNIQUE INDEX "ask_message_uid_key" ON "ask_message"("uid");

-- CreateIndex
CREATE INDEX "ask_message_threadId_createdAt_idx" ON "ask_message"("threadId", "createdAt");

-- CreateIndex
CREATE INDEX "ask_message_workspaceId_createdAt_idx" ON "ask_message"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "ask_message_status_idx" ON "ask_message"("status");

-- CreateIndex
CREATE UNIQUE INDEX "team_finding_uid_key" ON "team_finding"("uid");

-- CreateIndex
CREATE INDEX "team_finding_projectId_createdAt_idx" ON "team_finding"("projectId", "createdAt");
