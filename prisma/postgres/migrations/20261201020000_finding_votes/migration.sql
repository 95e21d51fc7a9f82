-- AlterTable
ALTER TABLE "review_finding" ADD COLUMN     "resolvedAt" TIMESTAMP(3),
ADD COLUMN     "resolvedById" TEXT;

-- AlterTable
ALTER TABLE "finding_dismissal" ADD COLUMN     "source" TEXT NOT NULL DEFAULT 'manual';

-- CreateTable
CREATE TABLE "finding_vote" (
    "id" TEXT NOT NULL,
    "reviewId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "verdict" TEXT NOT NULL,
    "duplicateOf" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "finding_vote_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "finding_vote_reviewId_fingerprint_userId_key" ON "finding_vote"("reviewId", "fingerprint", "userId");

-- AddForeignKey
ALTER TABLE "finding_vote" ADD CONSTRAINT "finding_vote_reviewId_fkey" FOREIGN KEY ("reviewId") REFERENCES "review"("id") ON DELETE CASCADE ON UPDATE CASCADE;
