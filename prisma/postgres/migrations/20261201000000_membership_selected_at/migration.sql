-- AlterTable
ALTER TABLE "membership" ADD COLUMN     "selectedAt" TIMESTAMP(3);
