-- CreateTable
CREATE TABLE "review_share" (
    "id" TEXT NOT NULL,
    "uid" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "reviewId" TEXT NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3),
    "revokedById" TEXT,

    CONSTRAINT "review_share_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "review_share_uid_key" ON "review_share"("uid");

-- CreateIndex
CREATE UNIQUE INDEX "review_share_tokenHash_key" ON "review_share"("tokenHash");

-- CreateIndex
CREATE INDEX "review_share_reviewId_createdAt_idx" ON "review_share"("reviewId", "createdAt");

-- AddForeignKey
ALTER TABLE "review_share" ADD CONSTRAINT "review_share_reviewId_fkey" FOREIGN KEY ("reviewId") REFERENCES "review"("id") ON DELETE CASCADE ON UPDATE CASCADE;
