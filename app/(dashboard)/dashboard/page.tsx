// GET /dashboard — signed-in operators: their first project's overview.
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { dashboardUser } from "@/lib/dashboard/session";
import { SignOutButton } from "../../(auth)/sign-in/sign-in-form";

export const metadata: Metadata = { title: "Dashboard · Idemgate" };

export default async function DashboardHome() {
  const user = await dashboardUser();
  if (!user) redirect("/sign-in");
  const first = user.projects[0];
  if (first) redirect(`/projects/${encodeURIComponent(first.projectId)}`);
  return (
    <main>
      <h1>No projects yet</h1>
      <p className="muted">You are signed in as {user.email}, but not a member of any project yet. Ask an admin to add you.</p>
      <SignOutButton />
    </main>
  );
}
