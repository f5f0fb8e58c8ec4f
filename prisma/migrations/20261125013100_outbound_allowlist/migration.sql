-- CreateTable
CREATE TABLE "outbound_allowlist" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "project_id" TEXT NOT NULL,
    "pattern" TEXT NOT NULL,
    "note" TEXT,
    "created_at" BIGINT NOT NULL,
    "created_by" TEXT
);

-- CreateIndex
CREATE UNIQUE INDEX "outbound_allowlist_project_id_pattern_key" ON "outbound_allowlist"("project_id", "pattern");

