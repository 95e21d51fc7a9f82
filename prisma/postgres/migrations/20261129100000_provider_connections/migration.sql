-- CreateTable
CREATE TABLE "provider_connection" (
    "id" TEXT NOT NULL,
    "uid" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "baseUrl" TEXT,
    "model" TEXT,
    "apiKeyCipher" TEXT,
    "apiKeyHint" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "provider_connection_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "provider_connection_uid_key" ON "provider_connection"("uid");

-- CreateIndex
CREATE UNIQUE INDEX "provider_connection_workspaceId_name_key" ON "provider_connection"("workspaceId", "name");

-- AddForeignKey
ALTER TABLE "provider_connection" ADD CONSTRAINT "provider_connection_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
