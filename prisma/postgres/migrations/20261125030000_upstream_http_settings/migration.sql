-- AlterTable
ALTER TABLE "upstreams" ADD COLUMN     "idempotency_header" TEXT,
ADD COLUMN     "max_stored_bytes" INTEGER;

