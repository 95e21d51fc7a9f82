-- CreateTable
CREATE TABLE "pipeline_chat" (
    "id" TEXT NOT NULL,
    "uid" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "pipelineId" TEXT,
    "galleryKey" TEXT,
    "pipelineTitle" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "pipeline_chat_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pipeline_chat_message" (
    "id" TEXT NOT NULL,
    "uid" TEXT NOT NULL,
    "chatId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'done',
    "mode" TEXT,
    "runUid" TEXT,
    "sources" TEXT,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "pipeline_chat_message_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_chat_uid_key" ON "pipeline_chat"("uid");

-- CreateIndex
CREATE INDEX "pipeline_chat_workspaceId_updatedAt_idx" ON "pipeline_chat"("workspaceId", "updatedAt");

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_chat_message_uid_key" ON "pipeline_chat_message"("uid");

-- CreateIndex
CREATE INDEX "pipeline_chat_message_chatId_createdAt_idx" ON "pipeline_chat_message"("chatId", "createdAt");

-- AddForeignKey
ALTER TABLE "pipeline_chat" ADD CONSTRAINT "pipeline_chat_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pipeline_chat" ADD CONSTRAINT "pipeline_chat_pipelineId_fkey" FOREIGN KEY ("pipelineId") REFERENCES "pipeline"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pipeline_chat_message" ADD CONSTRAINT "pipeline_chat_message_chatId_fkey" FOREIGN KEY ("chatId") REFERENCES "pipeline_chat"("id") ON DELETE CASCADE ON UPDATE CASCADE;
