-- CreateTable
CREATE TABLE "alert_channels" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "secret_enc" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL,
    "created_by" TEXT,

    CONSTRAINT "alert_channels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_rules" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "condition" TEXT NOT NULL,
    "tool" TEXT,
    "minutes" INTEGER,
    "channel_ids" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL,
    "created_by" TEXT,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_signals" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "source_id" TEXT NOT NULL,
    "tool" TEXT,
    "run_id" TEXT,
    "call_id" TEXT,
    "detail" TEXT,
    "at" BIGINT NOT NULL,
    "processed_at" BIGINT,

    CONSTRAINT "alert_signals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_deliveries" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "signal_id" TEXT NOT NULL,
    "channel_id" TEXT NOT NULL,
    "rule_id" TEXT,
    "condition" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "dedup_key" TEXT NOT NULL,
    "alert" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" BIGINT NOT NULL,
    "lease_owner" TEXT,
    "lease_until" BIGINT,
    "last_code" INTEGER,
    "last_error" TEXT,
    "created_at" BIGINT NOT NULL,
    "delivered_at" BIGINT,

    CONSTRAINT "alert_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_delivery_attempts" (
    "id" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "at" BIGINT NOT NULL,
    "outcome" TEXT NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,

    CONSTRAINT "alert_delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alert_channels_project_id_idx" ON "alert_channels"("project_id");

-- CreateIndex
CREATE INDEX "alert_rules_project_id_idx" ON "alert_rules"("project_id");

-- CreateIndex
CREATE INDEX "alert_signals_processed_at_at_idx" ON "alert_signals"("processed_at", "at");

-- CreateIndex
CREATE INDEX "alert_deliveries_status_next_attempt_at_idx" ON "alert_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "alert_deliveries_project_id_created_at_idx" ON "alert_deliveries"("project_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "alert_deliveries_signal_id_channel_id_key" ON "alert_deliveries"("signal_id", "channel_id");

-- CreateIndex
CREATE INDEX "alert_delivery_attempts_project_id_at_idx" ON "alert_delivery_attempts"("project_id", "at");

-- CreateIndex
CREATE INDEX "alert_delivery_attempts_delivery_id_idx" ON "alert_delivery_attempts"("delivery_id");


-- Alerts' outbox: triggers write a signal in the same transaction as the event or storm row that
-- raised it (only in projects with an alert rule), whatever code path wrote that row. Function bodies
-- spell each semicolon as \073: Prisma's Postgres adapter splits migration scripts at every semicolon.
CREATE FUNCTION "idemgate_alert_signal_from_event"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN
    IF EXISTS (SELECT 1 FROM "alert_rules" WHERE "project_id" = NEW."project_id") THEN
      INSERT INTO "alert_signals" ("id", "project_id", "kind", "source_id", "tool", "run_id", "call_id", "detail", "at")
      VALUES (''sig_'' || NEW."id", NEW."project_id", ''event'', NEW."id", NEW."tool", NEW."run_id", NEW."call_id",
        json_build_object(''type'', NEW."type", ''decision'', NEW."decision", ''key'', NEW."key", ''attempt'', NEW."attempt", ''detail'', NEW."detail")::text, NEW."at")
      ON CONFLICT DO NOTHING\073
    END IF\073
    RETURN NULL\073
  END';

CREATE TRIGGER "alert_signal_from_event" AFTER INSERT ON "events" FOR EACH ROW
WHEN (NEW."type" = 'lease_lost'
    OR (NEW."type" = 'begin' AND NEW."decision" = 'blocked')
    OR (NEW."type" = 'complete' AND NEW."decision" = 'failed' AND NEW."key" LIKE '%:compensate'))
EXECUTE FUNCTION "idemgate_alert_signal_from_event"();

CREATE FUNCTION "idemgate_alert_signal_from_storm"() RETURNS trigger LANGUAGE plpgsql AS E'DECLARE
    transition TEXT := CASE WHEN TG_OP = ''INSERT'' THEN ''opened'' ELSE ''closed'' END\073
  BEGIN
    IF EXISTS (SELECT 1 FROM "alert_rules" WHERE "project_id" = NEW."project_id") THEN
      INSERT INTO "alert_signals" ("id", "project_id", "kind", "source_id", "tool", "detail", "at")
      VALUES (''sig_'' || NEW."id" || ''_'' || transition, NEW."project_id", ''storm_'' || transition, NEW."id", NEW."tool",
        json_build_object(''rule'', NEW."rule", ''baseline'', NEW."baseline", ''threshold'', NEW."threshold", ''windowSeconds'', NEW."window_seconds",
          ''peakHits'', NEW."peak_hits", ''totalHits'', NEW."total_hits", ''openingHits'', NEW."opening_hits", ''runsInvolved'', NEW."runs_involved",
          ''startedAt'', NEW."started_at", ''endedAt'', NEW."ended_at")::text, NEW."updated_at")
      ON CONFLICT DO NOTHING\073
    END IF\073
    RETURN NULL\073
  END';

CREATE TRIGGER "alert_signal_storm_opened" AFTER INSERT ON "storms" FOR EACH ROW
EXECUTE FUNCTION "idemgate_alert_signal_from_storm"();

CREATE TRIGGER "alert_signal_storm_closed" AFTER UPDATE OF "status" ON "storms" FOR EACH ROW
WHEN (OLD."status" = 'open' AND NEW."status" = 'closed')
EXECUTE FUNCTION "idemgate_alert_signal_from_storm"();
