-- The calls list sorted by a column (issue #38 §2): each sort walks (project_id, column, id).
CREATE INDEX "call_records_project_id_tool_id_idx" ON "call_records"("project_id", "tool", "id");
CREATE INDEX "call_records_project_id_state_id_idx" ON "call_records"("project_id", "state", "id");
CREATE INDEX "call_records_project_id_attempt_id_idx" ON "call_records"("project_id", "attempt", "id");
