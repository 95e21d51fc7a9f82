-- CreateTable
CREATE TABLE "user_preference" (
    "userId" TEXT NOT NULL,
    "hidePosition" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "user_preference_pkey" PRIMARY KEY ("userId")
);

-- CreateTable
CREATE TABLE "room_message_reaction" (
    "id" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "emoji" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "room_message_reaction_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "room_message_reaction_messageId_userId_emoji_key" ON "room_message_reaction"("messageId", "userId", "emoji");

-- AddForeignKey
ALTER TABLE "user_preference" ADD CONSTRAINT "user_preference_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "room_message_reaction" ADD CONSTRAINT "room_message_reaction_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "room_message"("id") ON DELETE CASCADE ON UPDATE CASCADE;
