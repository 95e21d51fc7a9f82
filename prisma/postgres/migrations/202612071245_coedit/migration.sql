-- AlterTable
ALTER TABLE "pipeline_version" ADD COLUMN     "editedBy" TEXT NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "coedit_doc" (
    "room" TEXT NOT NULL,
    "snapshot" BYTEA NOT NULL,
    "upTo" INTEGER NOT NULL DEFAULT 0,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "editors" TEXT NOT NULL DEFAULT '[]',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "coedit_doc_pkey" PRIMARY KEY ("room")
);

-- CreateTable
CREATE TABLE "coedit_update" (
    "id" SERIAL NOT NULL,
    "room" TEXT NOT NULL,
    "generation" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,
    "userId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "coedit_update_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "coedit_update_room_id_idx" ON "coedit_update"("room", "id");
