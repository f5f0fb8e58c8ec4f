-- A loop step decided by a tool that blocks loops names the newest step of its run it was decided
-- on ('' for none): two such steps decided on the same history cannot both be written, so a run's
-- steps are decided one after the other even when they arrive at once (issue #38 §1a).
ALTER TABLE "events" ADD COLUMN "loop_after" TEXT;

-- Partial: steps written without the chain (loops only flagged or off, and every other event) are NULL.
CREATE UNIQUE INDEX "events_loop_chain_key" ON "events"("project_id", "run_id", "loop_after") WHERE "loop_after" IS NOT NULL;
