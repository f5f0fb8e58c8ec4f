-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "projects" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL,
    "last_used_at" BIGINT,
    "revoked_at" BIGINT,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "call_records" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "step_id" TEXT,
    "scope" TEXT,
    "agent_id" TEXT,
    "tool_call_id" TEXT,
    "strategy" TEXT NOT NULL,
    "args_fingerprint" TEXT NOT NULL,
    "args" TEXT,
    "state" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "lease_token" TEXT,
    "lease_expires_at" BIGINT,
    "result" TEXT,
    "error" TEXT,
    "replays" INTEGER NOT NULL DEFAULT 0,
    "first_seen_at" BIGINT NOT NULL,
    "completed_at" BIGINT,
    "expires_at" BIGINT NOT NULL,
    "updated_at" BIGINT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "policy_version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "call_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "call_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "agent_id" TEXT,
    "tool_call_id" TEXT,
    "type" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "args_mismatch" INTEGER NOT NULL DEFAULT 0,
    "latency_us" INTEGER NOT NULL DEFAULT 0,
    "at" BIGINT NOT NULL,
    "policy_version" INTEGER NOT NULL DEFAULT 0,
    "detail" TEXT,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_project_id_idx" ON "api_keys"("project_id");

-- CreateIndex
CREATE INDEX "call_records_project_id_run_id_idx" ON "call_records"("project_id", "run_id");

-- CreateIndex
CREATE INDEX "call_records_expires_at_idx" ON "call_records"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "call_records_project_id_key_key" ON "call_records"("project_id", "key");

-- CreateIndex
CREATE INDEX "events_project_id_at_idx" ON "events"("project_id", "at");

-- CreateIndex
CREATE INDEX "events_project_id_call_id_idx" ON "events"("project_id", "call_id");

-- CreateIndex
CREATE INDEX "events_project_id_run_id_idx" ON "events"("project_id", "run_id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

