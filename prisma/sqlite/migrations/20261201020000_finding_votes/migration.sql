-- AlterTable
ALTER TABLE "review_finding" ADD COLUMN "resolvedAt" DATETIME;
ALTER TABLE "review_finding" ADD COLUMN "resolvedById" TEXT;

-- CreateTable
CREATE TABLE "finding_vote" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "reviewId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "verdict" TEXT NOT NULL,
    "duplicateOf" TEXT,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "finding_vote_reviewId_fkey" FOREIGN KEY ("reviewId") REFERENCES "review" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- AlterTable
ALTER TABLE "finding_dismissal" ADD COLUMN "source" TEXT NOT NULL DEFAULT 'manual';

-- CreateIndex
CREATE UNIQUE INDEX "finding_vote_reviewId_fingerprint_userId_key" ON "finding_vote"("reviewId", "fingerprint", "userId");
