// GET /projects/{projectId}/calls — any member: the project's calls, filtered (URL search params) and paged.
import type { Metadata } from "next";
import { Suspense } from "react";
import { CallsExplorer } from "@/components/CallsExplorer";
import { Loading } from "@/components/StateViews";

export const metadata: Metadata = { title: "Calls · Idemgate" };

export default function CallsPage() {
  return (
    <Suspense fallback={<Loading label="Loading calls…" />}>
      <CallsExplorer />
    </Suspense>
  );
}
