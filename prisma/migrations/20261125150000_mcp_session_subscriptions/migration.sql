-- CreateTable
CREATE TABLE "mcp_session_subscriptions" (
    "session_id" TEXT NOT NULL,
    "uri" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL,

    PRIMARY KEY ("session_id", "uri")
);
