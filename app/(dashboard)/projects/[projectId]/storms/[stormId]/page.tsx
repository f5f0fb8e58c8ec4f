// GET /projects/{projectId}/storms/{stormId} — any member: one storm, its rate against the baseline, runs and keys involved.
import type { Metadata } from "next";
import { StormDetailView } from "@/components/StormDetailView";

export const metadata: Metadata = { title: "Storm · Idemgate" };

export default async function StormPage({ params }: { params: Promise<{ stormId: string }> }) {
  const { stormId } = await params;
  return <StormDetailView stormId={decodeURIComponent(stormId)} />;
}
