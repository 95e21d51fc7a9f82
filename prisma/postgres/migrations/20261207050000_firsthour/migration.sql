-- AlterTable
ALTER TABLE "provider_connection" ADD COLUMN     "isDefault" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "review" ADD COLUMN     "connectionName" TEXT;

-- AlterTable
ALTER TABLE "ask_message" ADD COLUMN     "connectionUid" TEXT;

-- AlterTable
ALTER TABLE "pipeline_run" ADD COLUMN     "modelConnection" TEXT;
