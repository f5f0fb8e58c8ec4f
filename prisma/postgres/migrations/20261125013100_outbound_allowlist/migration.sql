-- CreateTable
CREATE TABLE "outbound_allowlist" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "pattern" TEXT NOT NULL,
    "note" TEXT,
    "created_at" BIGINT NOT NULL,
    "created_by" TEXT,

    CONSTRAINT "outbound_allowlist_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "outbound_allowlist_project_id_pattern_key" ON "outbound_allowlist"("project_id", "pattern");

