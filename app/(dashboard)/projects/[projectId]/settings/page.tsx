// GET /projects/{projectId}/settings — admins: API keys (created once, revoked) and members with their roles; others: their access.
import type { Metadata } from "next";
import { SettingsView } from "@/components/SettingsView";

export const metadata: Metadata = { title: "Settings · Idemgate" };

export default function SettingsPage() {
  return <SettingsView />;
}
