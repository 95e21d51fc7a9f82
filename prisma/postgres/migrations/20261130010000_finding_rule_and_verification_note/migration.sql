-- AlterTable
ALTER TABLE "review_finding" ADD COLUMN     "ruleId" TEXT,
ADD COLUMN     "verificationNote" TEXT;
