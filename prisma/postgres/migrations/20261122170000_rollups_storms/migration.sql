-- CreateTable
CREATE TABLE "event_rollups" (
    "project_id" TEXT NOT NULL,
    "minute" BIGINT NOT NULL,
    "tool" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "total" INTEGER NOT NULL,
    "latency_us" BIGINT NOT NULL,

    CONSTRAINT "event_rollups_pkey" PRIMARY KEY ("project_id","minute","tool","kind")
);

-- CreateTable
CREATE TABLE "storms" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "open_tool" TEXT,
    "status" TEXT NOT NULL,
    "window_seconds" INTEGER NOT NULL,
    "baseline" DOUBLE PRECISION NOT NULL,
    "threshold" DOUBLE PRECISION NOT NULL,
    "started_at" BIGINT NOT NULL,
    "last_window_at" BIGINT NOT NULL,
    "ended_at" BIGINT,
    "peak_hits" INTEGER NOT NULL,
    "last_hits" INTEGER NOT NULL,
    "total_hits" INTEGER NOT NULL,
    "quiet_windows" INTEGER NOT NULL,
    "runs_involved" INTEGER NOT NULL,
    "top_keys" TEXT NOT NULL,
    "top_runs" TEXT NOT NULL,
    "policy_version" INTEGER NOT NULL,
    "updated_at" BIGINT NOT NULL,

    CONSTRAINT "storms_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "event_rollups_minute_idx" ON "event_rollups"("minute");

-- CreateIndex
CREATE INDEX "storms_project_id_started_at_idx" ON "storms"("project_id", "started_at");

-- CreateIndex
CREATE INDEX "storms_project_id_tool_last_window_at_idx" ON "storms"("project_id", "tool", "last_window_at");

-- CreateIndex
CREATE UNIQUE INDEX "storms_project_id_open_tool_key" ON "storms"("project_id", "open_tool");


-- Rollups (hand-written: Prisma does not model triggers). First count the events already in the
-- ledger, then let every new begin, complete and lease-lost event count itself in the same
-- transaction as its insert. In this order an event written by an old instance between the two
-- statements is missed rather than counted twice: charts may be a hair low, never inflated.
-- Heartbeats, resends and operator actions are not charted.
INSERT INTO "event_rollups" ("project_id", "minute", "tool", "kind", "total", "latency_us")
SELECT "project_id", ("at" / 60000) * 60000, "tool",
    CASE "type" WHEN 'begin' THEN "decision" WHEN 'complete' THEN 'complete_' || "decision" ELSE 'lease_lost' END,
    COUNT(*), SUM("latency_us")
FROM "events" WHERE "type" IN ('begin', 'complete', 'lease_lost')
GROUP BY 1, 2, 3, 4;

-- (the body spells its semicolons as \073: the migration runner splits scripts at every semicolon)
CREATE FUNCTION "events_rollup"() RETURNS trigger LANGUAGE plpgsql AS
    E'BEGIN INSERT INTO event_rollups (project_id, minute, tool, kind, total, latency_us) VALUES (NEW.project_id, (NEW.at / 60000) * 60000, NEW.tool, CASE NEW.type WHEN ''begin'' THEN NEW.decision WHEN ''complete'' THEN ''complete_'' || NEW.decision ELSE ''lease_lost'' END, 1, NEW.latency_us) ON CONFLICT (project_id, minute, tool, kind) DO UPDATE SET total = event_rollups.total + 1, latency_us = event_rollups.latency_us + EXCLUDED.latency_us\073 RETURN NULL\073 END';

CREATE TRIGGER "events_rollup" AFTER INSERT ON "events"
    FOR EACH ROW WHEN (NEW."type" IN ('begin', 'complete', 'lease_lost')) EXECUTE FUNCTION "events_rollup"();
