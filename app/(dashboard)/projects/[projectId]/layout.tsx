// The dashboard for one project: nav, and the operator's role there (none: 404).
import type { ReactNode } from "react";
import { notFound, redirect } from "next/navigation";
import { DashboardNav } from "@/components/DashboardNav";
import { ProjectProvider } from "@/components/ProjectContext";
import { dashboardRole, dashboardUser } from "@/lib/dashboard/session";

export default async function ProjectLayout({ children, params }: { children: ReactNode; params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const user = await dashboardUser();
  if (!user) redirect("/sign-in");
  const role = await dashboardRole(projectId);
  if (!role) notFound();
  const projects = user.projects.some((p) => p.projectId === projectId) ? user.projects : [...user.projects, { projectId, role }];
  return (
    <ProjectProvider value={{ projectId, role }}>
      <div className="dash">
        <a className="skip" href="#content">
          Skip to content
        </a>
        <DashboardNav projectId={projectId} role={role} email={user.email} projects={projects} />
        <main className="dash-main" id="content">
          {children}
        </main>
      </div>
    </ProjectProvider>
  );
}
