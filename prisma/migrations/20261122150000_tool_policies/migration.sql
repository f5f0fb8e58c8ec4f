-- CreateTable
CREATE TABLE "tool_policies" (
    "project_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "overrides" TEXT,
    "version" INTEGER NOT NULL DEFAULT 0,
    "first_seen_at" BIGINT,
    "updated_at" BIGINT,
    "updated_by" TEXT,

    PRIMARY KEY ("project_id", "tool")
);

-- CreateTable
CREATE TABLE "policy_revisions" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "project_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "author" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "at" BIGINT NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "restored_from" INTEGER
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_events" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "project_id" TEXT NOT NULL,
    "call_id" TEXT,
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
    "args_fingerprint" TEXT,
    "loop_step" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_events" ("agent_id", "args_mismatch", "at", "attempt", "call_id", "decision", "detail", "id", "key", "latency_us", "policy_version", "project_id", "run_id", "tool", "tool_call_id", "type") SELECT "agent_id", "args_mismatch", "at", "attempt", "call_id", "decision", "detail", "id", "key", "latency_us", "policy_version", "project_id", "run_id", "tool", "tool_call_id", "type" FROM "events";
DROP TABLE "events";
ALTER TABLE "new_events" RENAME TO "events";
CREATE INDEX "events_project_id_at_idx" ON "events"("project_id", "at");
CREATE INDEX "events_project_id_call_id_idx" ON "events"("project_id", "call_id");
CREATE INDEX "events_project_id_run_id_loop_step_id_idx" ON "events"("project_id", "run_id", "loop_step", "id");
CREATE INDEX "events_project_id_tool_id_idx" ON "events"("project_id", "tool", "id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "policy_revisions_project_id_tool_version_idx" ON "policy_revisions"("project_id", "tool", "version");

-- CreateIndex
CREATE UNIQUE INDEX "policy_revisions_project_id_version_key" ON "policy_revisions"("project_id", "version");

