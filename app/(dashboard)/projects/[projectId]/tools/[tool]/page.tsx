// GET /projects/{projectId}/tools/{tool} — admins: edit a tool's policy, see its history.
import type { Metadata } from "next";
import { PolicyEditor } from "@/components/PolicyEditor";

export const metadata: Metadata = { title: "Policy · Idemgate" };

export default async function ToolPolicyPage({ params }: { params: Promise<{ tool: string }> }) {
  const { tool } = await params;
  return <PolicyEditor tool={decodeURIComponent(tool)} />;
}
