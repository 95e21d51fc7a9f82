-- CreateTable
CREATE TABLE "review_share" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "reviewId" TEXT NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "revokedAt" DATETIME,
    "revokedById" TEXT,
    CONSTRAINT "review_share_reviewId_fkey" FOREIGN KEY ("reviewId") REFERENCES "review" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "review_share_uid_key" ON "review_share"("uid");

-- CreateIndex
CREATE UNIQUE INDEX "review_share_tokenHash_key" ON "review_share"("tokenHash");

-- CreateIndex
CREATE INDEX "review_share_reviewId_createdAt_idx" ON "review_share"("reviewId", "createdAt");
