// GET /projects/{projectId}/audit — any member: who did what to which, when and from where; filters in the URL.
import type { Metadata } from "next";
import { Suspense } from "react";
import { AuditLog } from "@/components/AuditLog";
import { Loading } from "@/components/StateViews";

export const metadata: Metadata = { title: "Audit log · Idemgate" };

export default function AuditPage() {
  return (
    <Suspense fallback={<Loading label="Loading the audit log…" />}>
      <AuditLog />
    </Suspense>
  );
}
