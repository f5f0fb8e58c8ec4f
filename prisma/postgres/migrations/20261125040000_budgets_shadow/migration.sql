-- AlterTable
ALTER TABLE "events" ADD COLUMN     "shadow_decision" TEXT;

-- CreateTable
CREATE TABLE "run_budgets" (
    "project_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "cost_micros" BIGINT NOT NULL DEFAULT 0,
    "currency" TEXT NOT NULL,
    "max_calls" INTEGER,
    "max_cost_micros" BIGINT,
    "updated_at" BIGINT NOT NULL,

    CONSTRAINT "run_budgets_pkey" PRIMARY KEY ("project_id","run_id")
);
