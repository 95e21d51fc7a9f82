-- CreateTable
CREATE TABLE "pipeline_memory" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "profile" TEXT NOT NULL,
    "global" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "pipeline_memory_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "pipeline_memory_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "pipeline_memory_turn" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "memoryId" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "answer" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "pipeline_memory_turn_memoryId_fkey" FOREIGN KEY ("memoryId") REFERENCES "pipeline_memory" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "pipeline_memory_userId_idx" ON "pipeline_memory"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "pipeline_memory_workspaceId_userId_profile_key" ON "pipeline_memory"("workspaceId", "userId", "profile");

-- CreateIndex
CREATE INDEX "pipeline_memory_turn_memoryId_createdAt_idx" ON "pipeline_memory_turn"("memoryId", "createdAt");
