// GET /projects/{projectId}/runs — any member: recent runs with their counts.
import type { Metadata } from "next";
import { Suspense } from "react";
import { RunsList } from "@/components/RunsList";
import { Loading } from "@/components/StateViews";

export const metadata: Metadata = { title: "Runs · Idemgate" };

export default function RunsPage() {
  return (
    <Suspense fallback={<Loading label="Loading runs…" />}>
      <RunsList />
    </Suspense>
  );
}
