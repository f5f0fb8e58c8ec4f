// GET /projects/{projectId}/calls/{callId} — any member reads a call; operators may evict its outcome.
import type { Metadata } from "next";
import { CallDetail } from "@/components/CallDetail";

export const metadata: Metadata = { title: "Call · Idemgate" };

export default async function CallPage({ params }: { params: Promise<{ callId: string }> }) {
  const { callId } = await params;
  return <CallDetail callId={decodeURIComponent(callId)} />;
}
