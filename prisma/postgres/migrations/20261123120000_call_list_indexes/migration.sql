-- The calls and runs explorer (dashboard). Replacement indexes are created before the ones they
-- replace are dropped, so no query runs without one meanwhile. The extended indexes keep serving
-- every query the old ones did (same leading columns).

-- CreateIndex: the calls list, newest first, paged by the (first_seen_at, id) cursor
CREATE INDEX "call_records_project_id_first_seen_at_id_idx" ON "call_records"("project_id", "first_seen_at", "id");

-- CreateIndex: a run's calls in order, replacing call_records_project_id_run_id_idx
CREATE INDEX "call_records_project_id_run_id_first_seen_at_id_idx" ON "call_records"("project_id", "run_id", "first_seen_at", "id");

-- CreateIndex: a call's ledger in id order and its latest begin, replacing events_project_id_call_id_idx
CREATE INDEX "events_project_id_call_id_id_idx" ON "events"("project_id", "call_id", "id");

-- DropIndex
DROP INDEX "call_records_project_id_run_id_idx";

-- DropIndex
DROP INDEX "events_project_id_call_id_idx";
