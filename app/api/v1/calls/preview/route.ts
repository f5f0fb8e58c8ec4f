// POST /api/v1/calls/preview — agents (project API key): store a dry run's preview of a call; returns its previewToken (or, under `approve`, a pending preview).
import { previewRoute } from "@/lib/http/agent-routes";
import { withApiRoute } from "@/lib/http/with-api-route";

export const POST = withApiRoute(previewRoute);
