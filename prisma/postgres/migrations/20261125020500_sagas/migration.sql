-- AlterTable
ALTER TABLE "call_records" ADD COLUMN     "compensation" TEXT;

-- CreateTable
CREATE TABLE "run_aborts" (
    "project_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "aborted_by" TEXT NOT NULL,
    "aborted_at" BIGINT NOT NULL,

    CONSTRAINT "run_aborts_pkey" PRIMARY KEY ("project_id","run_id")
);

