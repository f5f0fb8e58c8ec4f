// GET /projects/{projectId}/calls — any member: open a call by id.
import type { Metadata } from "next";
import { CallLookup } from "@/components/CallLookup";

export const metadata: Metadata = { title: "Calls · Idemgate" };

export default function CallsPage() {
  return <CallLookup />;
}
