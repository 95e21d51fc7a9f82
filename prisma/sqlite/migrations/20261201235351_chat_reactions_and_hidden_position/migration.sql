-- CreateTable
CREATE TABLE "user_preference" (
    "userId" TEXT NOT NULL PRIMARY KEY,
    "hidePosition" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "user_preference_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "room_message_reaction" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "messageId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "emoji" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "room_message_reaction_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "room_message" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "room_message_reaction_messageId_userId_emoji_key" ON "room_message_reaction"("messageId", "userId", "emoji");
