-- CreateTable
CREATE TABLE "review_steer" (
    "id" TEXT NOT NULL,
    "uid" TEXT NOT NULL,
    "reviewId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "authorId" TEXT NOT NULL,
    "text" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),

    CONSTRAINT "review_steer_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "review_steer_uid_key" ON "review_steer"("uid");

-- CreateIndex
CREATE INDEX "review_steer_reviewId_createdAt_idx" ON "review_steer"("reviewId", "createdAt");

-- AddForeignKey
ALTER TABLE "review_steer" ADD CONSTRAINT "review_steer_reviewId_fkey" FOREIGN KEY ("reviewId") REFERENCES "review"("id") ON DELETE CASCADE ON UPDATE CASCADE;
