-- AlterTable
ALTER TABLE "review_finding" ADD COLUMN "ruleId" TEXT;
ALTER TABLE "review_finding" ADD COLUMN "verificationNote" TEXT;
