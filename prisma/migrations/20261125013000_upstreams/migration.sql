-- CreateTable
CREATE TABLE "upstreams" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "transport" TEXT,
    "url" TEXT,
    "command" TEXT,
    "args" TEXT,
    "headers" TEXT,
    "secret_header" TEXT,
    "secret_enc" TEXT,
    "created_at" BIGINT NOT NULL,
    "updated_at" BIGINT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1
);

-- CreateTable
CREATE TABLE "mcp_sessions" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "project_id" TEXT NOT NULL,
    "upstream" TEXT NOT NULL,
    "api_key_id" TEXT NOT NULL,
    "protocol_version" TEXT,
    "client_name" TEXT,
    "created_at" BIGINT NOT NULL,
    "last_seen_at" BIGINT NOT NULL,
    "expires_at" BIGINT NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "upstreams_project_id_name_key" ON "upstreams"("project_id", "name");

-- CreateIndex
CREATE INDEX "mcp_sessions_expires_at_idx" ON "mcp_sessions"("expires_at");

