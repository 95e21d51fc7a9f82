-- CreateTable
CREATE TABLE "forge_gitlab_secret" (
    "id" TEXT NOT NULL,
    "installationId" TEXT NOT NULL,
    "tokenCipher" TEXT NOT NULL,
    "webhookSecretCipher" TEXT NOT NULL,
    "webhookSecretHash" TEXT NOT NULL,

    CONSTRAINT "forge_gitlab_secret_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "forge_gitlab_secret_installationId_key" ON "forge_gitlab_secret"("installationId");

-- CreateIndex
CREATE UNIQUE INDEX "forge_gitlab_secret_webhookSecretHash_key" ON "forge_gitlab_secret"("webhookSecretHash");

-- AddForeignKey
ALTER TABLE "forge_gitlab_secret" ADD CONSTRAINT "forge_gitlab_secret_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "forge_installation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
