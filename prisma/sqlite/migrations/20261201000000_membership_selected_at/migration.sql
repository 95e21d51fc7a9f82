-- AlterTable
ALTER TABLE "membership" ADD COLUMN "selectedAt" DATETIME;
