-- AlterTable
ALTER TABLE "mcp_sessions" ADD COLUMN "log_level" TEXT;
