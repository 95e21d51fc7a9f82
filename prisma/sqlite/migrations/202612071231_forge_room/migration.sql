-- AlterTable
ALTER TABLE "forge_repo" ADD COLUMN "failOn" TEXT;

-- AlterTable
ALTER TABLE "forge_comment" ADD COLUMN "reviewUid" TEXT;
ALTER TABLE "forge_comment" ADD COLUMN "verdict" TEXT;

-- CreateTable
CREATE TABLE "forge_feedback" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "commentId" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "forge_feedback_commentId_fkey" FOREIGN KEY ("commentId") REFERENCES "forge_comment" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "forge_mention" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "pullId" TEXT NOT NULL,
    "answerUid" TEXT NOT NULL,
    "commentId" TEXT NOT NULL,
    "commentKind" TEXT NOT NULL,
    "sha" TEXT NOT NULL,
    "answeredAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "forge_mention_pullId_fkey" FOREIGN KEY ("pullId") REFERENCES "forge_pull" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "forge_app_credential" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "appId" INTEGER NOT NULL,
    "sealedPrivateKey" TEXT NOT NULL,
    "sealedWebhookSecret" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "forge_app_credential_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "forge_feedback_commentId_externalId_key" ON "forge_feedback"("commentId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "forge_mention_answerUid_key" ON "forge_mention"("answerUid");

-- CreateIndex
CREATE UNIQUE INDEX "forge_app_credential_workspaceId_key" ON "forge_app_credential"("workspaceId");
