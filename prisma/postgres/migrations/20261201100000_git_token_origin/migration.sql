-- AlterTable
ALTER TABLE "project" ADD COLUMN     "gitTokenOrigin" TEXT;
