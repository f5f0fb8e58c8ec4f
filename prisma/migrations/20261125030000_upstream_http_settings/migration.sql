-- AlterTable
ALTER TABLE "upstreams" ADD COLUMN "idempotency_header" TEXT;
ALTER TABLE "upstreams" ADD COLUMN "max_stored_bytes" INTEGER;

