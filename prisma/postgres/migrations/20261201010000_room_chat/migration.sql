-- CreateTable
CREATE TABLE "room_message" (
    "id" TEXT NOT NULL,
    "uid" TEXT NOT NULL,
    "room" TEXT NOT NULL,
    "thread" TEXT,
    "authorId" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "editedAt" TIMESTAMP(3),
    "deletedAt" TIMESTAMP(3),

    CONSTRAINT "room_message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "room_message_edit" (
    "id" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "replacedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "room_message_edit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "room_message_uid_key" ON "room_message"("uid");

-- CreateIndex
CREATE INDEX "room_message_room_thread_createdAt_idx" ON "room_message"("room", "thread", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "room_message_edit_messageId_version_key" ON "room_message_edit"("messageId", "version");

-- AddForeignKey
ALTER TABLE "room_message_edit" ADD CONSTRAINT "room_message_edit_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "room_message"("id") ON DELETE CASCADE ON UPDATE CASCADE;
