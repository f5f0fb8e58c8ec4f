-- CreateTable
CREATE TABLE "previews" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "args_fingerprint" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "args" TEXT,
    "summary" TEXT NOT NULL,
    "affected" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "requested_by" TEXT NOT NULL,
    "decided_by" TEXT,
    "decision_note" TEXT,
    "decided_at" BIGINT,
    "token_hash" TEXT,
    "token_expires_at" BIGINT,
    "used_at" BIGINT,
    "created_at" BIGINT NOT NULL,
    "expires_at" BIGINT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "previews_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "previews_token_hash_key" ON "previews"("token_hash");

-- CreateIndex
CREATE INDEX "previews_project_id_status_created_at_idx" ON "previews"("project_id", "status", "created_at");

