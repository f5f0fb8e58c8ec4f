// GET /projects/{projectId}/runs/{runId} — any member: a run's timeline across its subagents.
import type { Metadata } from "next";
import { RunDetail } from "@/components/RunDetail";

export const metadata: Metadata = { title: "Run · Idemgate" };

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return <RunDetail runId={decodeURIComponent(runId)} />;
}
