-- CreateTable
CREATE TABLE "pipeline_chat" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "pipelineId" TEXT,
    "galleryKey" TEXT,
    "pipelineTitle" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "pipeline_chat_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "pipeline_chat_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "pipeline" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "pipeline_chat_message" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "chatId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'done',
    "mode" TEXT,
    "runUid" TEXT,
    "sources" TEXT,
    "error" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    CONSTRAINT "pipeline_chat_message_chatId_fkey" FOREIGN KEY ("chatId") REFERENCES "pipeline_chat" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_chat_uid_key" ON "pipeline_chat"("uid");

-- CreateIndex
CREATE INDEX "pipeline_chat_workspaceId_updatedAt_idx" ON "pipeline_chat"("workspaceId", "updatedAt");

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_chat_message_uid_key" ON "pipeline_chat_message"("uid");

-- CreateIndex
CREATE INDEX "pipeline_chat_message_chatId_createdAt_idx" ON "pipeline_chat_message"("chatId", "createdAt");
