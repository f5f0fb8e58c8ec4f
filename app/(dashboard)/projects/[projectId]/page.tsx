// GET /projects/{projectId} — any member: the overview (KPIs, decisions chart, open storms).
import type { Metadata } from "next";
import { OverviewView } from "@/components/OverviewView";

export const metadata: Metadata = { title: "Overview · Idemgate" };

export default function OverviewPage() {
  return <OverviewView />;
}
