-- CreateTable
CREATE TABLE "install_secrets" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL,

    CONSTRAINT "install_secrets_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "sign_in_failures" (
    "email" TEXT NOT NULL,
    "failures" INTEGER NOT NULL,
    "last_failed_at" BIGINT NOT NULL,
    "blocked_until" BIGINT NOT NULL,

    CONSTRAINT "sign_in_failures_pkey" PRIMARY KEY ("email")
);

