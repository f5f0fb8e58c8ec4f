-- DropIndex
DROP INDEX "events_project_id_run_id_idx";

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "args_fingerprint" TEXT,
ADD COLUMN     "loop_step" INTEGER NOT NULL DEFAULT 0,
ALTER COLUMN "call_id" DROP NOT NULL;

-- CreateTable
CREATE TABLE "tool_policies" (
    "project_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "overrides" TEXT,
    "version" INTEGER NOT NULL DEFAULT 0,
    "first_seen_at" BIGINT,
    "updated_at" BIGINT,
    "updated_by" TEXT,

    CONSTRAINT "tool_policies_pkey" PRIMARY KEY ("project_id","tool")
);

-- CreateTable
CREATE TABLE "policy_revisions" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "author" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "at" BIGINT NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "restored_from" INTEGER,

    CONSTRAINT "policy_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "policy_revisions_project_id_tool_version_idx" ON "policy_revisions"("project_id", "tool", "version");

-- CreateIndex
CREATE UNIQUE INDEX "policy_revisions_project_id_version_key" ON "policy_revisions"("project_id", "version");

-- CreateIndex
CREATE INDEX "events_project_id_run_id_loop_step_id_idx" ON "events"("project_id", "run_id", "loop_step", "id");

-- CreateIndex
CREATE INDEX "events_project_id_tool_id_idx" ON "events"("project_id", "tool", "id");

