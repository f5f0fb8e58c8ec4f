-- CreateTable
CREATE TABLE "install_secrets" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "sign_in_failures" (
    "email" TEXT NOT NULL PRIMARY KEY,
    "failures" INTEGER NOT NULL,
    "last_failed_at" BIGINT NOT NULL,
    "blocked_until" BIGINT NOT NULL
);

