-- AlterTable
ALTER TABLE "static_finding" ADD COLUMN     "trace" TEXT;

-- AlterTable
ALTER TABLE "review_finding" ADD COLUMN     "trace" TEXT;
