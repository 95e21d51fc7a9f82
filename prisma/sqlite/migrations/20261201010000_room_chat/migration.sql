-- CreateTable
CREATE TABLE "room_message" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "uid" TEXT NOT NULL,
    "room" TEXT NOT NULL,
    "thread" TEXT,
    "authorId" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "editedAt" DATETIME,
    "deletedAt" DATETIME
);

-- CreateTable
CREATE TABLE "room_message_edit" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "messageId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "replacedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "room_message_edit_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "room_message" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "room_message_uid_key" ON "room_message"("uid");

-- CreateIndex
CREATE INDEX "room_message_room_thread_createdAt_idx" ON "room_message"("room", "thread", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "room_message_edit_messageId_version_key" ON "room_message_edit"("messageId", "version");
