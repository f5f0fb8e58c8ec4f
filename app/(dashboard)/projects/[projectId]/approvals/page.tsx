// GET /projects/{projectId}/approvals — any member reads; operators approve or deny resend requests.
import type { Metadata } from "next";
import { ApprovalsInbox } from "@/components/ApprovalsInbox";

export const metadata: Metadata = { title: "Approvals · Idemgate" };

export default function ApprovalsPage() {
  return <ApprovalsInbox />;
}
