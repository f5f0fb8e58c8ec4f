// Operator dashboard shell: every page under it needs a session (else /sign-in).
import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { QueryProvider } from "@/components/QueryProvider";
import { dashboardUser } from "@/lib/dashboard/session";
import "./dashboard.css";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  if (!(await dashboardUser())) redirect("/sign-in");
  return <QueryProvider>{children}</QueryProvider>;
}
