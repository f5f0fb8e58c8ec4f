-- AlterTable
ALTER TABLE "storms" ADD COLUMN "rule" TEXT NOT NULL DEFAULT 'baseline';
ALTER TABLE "storms" ADD COLUMN "opening_window_at" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "storms" ADD COLUMN "opening_hits" INTEGER NOT NULL DEFAULT 0;
