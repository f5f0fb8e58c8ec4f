// GET /projects/{projectId} — any member: the overview (KPIs, decisions chart, dedup rate, open storms); the range is in the URL.
import type { Metadata } from "next";
import { Suspense } from "react";
import { OverviewView } from "@/components/OverviewView";
import { Loading } from "@/components/StateViews";

export const metadata: Metadata = { title: "Overview · Idemgate" };

export default function OverviewPage() {
  return (
    <Suspense fallback={<Loading label="Loading the overview…" />}>
      <OverviewView />
    </Suspense>
  );
}
