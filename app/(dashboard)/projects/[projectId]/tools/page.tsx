// GET /projects/{projectId}/tools — admins: the project's tools, their traffic and policies.
import type { Metadata } from "next";
import { ToolsTable } from "@/components/ToolsTable";

export const metadata: Metadata = { title: "Tools · Idemgate" };

export default function ToolsPage() {
  return <ToolsTable />;
}
