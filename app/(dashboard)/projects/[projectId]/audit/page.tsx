// GET /projects/{projectId}/audit — any member: who did what to which, when and from where.
import type { Metadata } from "next";
import { AuditLog } from "@/components/AuditLog";

export const metadata: Metadata = { title: "Audit log · Idemgate" };

export default function AuditPage() {
  return <AuditLog />;
}
