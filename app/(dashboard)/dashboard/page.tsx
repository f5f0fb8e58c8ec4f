// GET /dashboard — signed-in operators: their first project's overview.
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { dashboardUser } from "@/lib/dashboard/session";

export const metadata: Metadata = { title: "Dashboard · Idemgate" };

export default async function DashboardHome() {
  const user = await dashboardUser();
  if (!user) redirect("/sign-in");
  const first = user.projects[0];
  if (first) redirect(`/projects/${encodeURIComponent(first.projectId)}`);
  return (
    <main>
      <h1>No projects yet</h1>
      <p className="muted">You are not a member of any project. Ask an admin to add you.</p>
    </main>
  );
}
