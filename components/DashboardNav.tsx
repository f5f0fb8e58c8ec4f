"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { usePreviewsQuery } from "@/lib/dashboard/queries/use-previews-query";
import { useResendRequestsQuery } from "@/lib/dashboard/queries/use-resend-requests-query";
import type { MemberRole } from "@/lib/store/ports/operator-store";
import { ClientSelect } from "./ClientSelect";

const SECTIONS = [
  { href: "", label: "Overview" },
  { href: "/approvals", label: "Approvals" },
  { href: "/tools", label: "Tools & policies", admin: true },
  { href: "/calls", label: "Calls" },
  { href: "/runs", label: "Runs" },
  { href: "/storms", label: "Storms" },
  { href: "/audit", label: "Audit log" },
  { href: "/settings", label: "Settings" },
];

interface Props {
  projectId: string;
  role: MemberRole;
  email: string;
  projects: { projectId: string; role: MemberRole }[];
}

export function DashboardNav({ projectId, role, email, projects }: Props) {
  const pathname = usePathname();
  const router = useRouter();
  const base = `/projects/${encodeURIComponent(projectId)}`;
  const current = (href: string) => (href === "" ? pathname === base : pathname.startsWith(base + href));
  // On a phone the sections fold behind one button (CSS shows them always on wider screens); a new page folds them again.
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [pathname]);
  const pendingResends = useResendRequestsQuery(projectId, "pending");
  const pendingPreviews = usePreviewsQuery(projectId, "pending");
  // What waits for a human, shown on the nav item (issue #38 §2): resends and previews pending approval.
  const pending = (pendingResends.data?.requests.length ?? 0) + (pendingPreviews.data?.previews.length ?? 0);
  const here = SECTIONS.find((s) => s.href !== "" && current(s.href))?.label ?? "Overview";

  async function signOut() {
    await fetch("/api/auth/sign-out", { method: "POST", headers: { "content-type": "application/json" }, body: "{}", credentials: "same-origin" });
    window.location.assign("/sign-in");
  }

  return (
    <nav className={`dash-nav${open ? " open" : ""}`} aria-label="Dashboard">
      <div className="nav-top">
        <span className="brand">Idemgate</span>
        <button type="button" className="nav-toggle" aria-expanded={open} aria-controls="dash-nav-menu" onClick={() => setOpen((o) => !o)}>
          {open ? "Close menu" : `Menu · ${here}`}
        </button>
      </div>
      <div id="dash-nav-menu" className="nav-menu">
        {projects.length > 1 ? (
          <label>
            <span className="muted">Project</span>
            <ClientSelect
              value={projectId}
              onChange={(e) => router.push(`/projects/${encodeURIComponent(e.target.value)}`)}
              style={{ display: "block", width: "100%" }}
            >
              {projects.map((p) => (
                <option key={p.projectId} value={p.projectId}>
                  {p.projectId} ({p.role})
                </option>
              ))}
            </ClientSelect>
          </label>
        ) : (
          <span className="muted">
            Project <code>{projectId}</code>
          </span>
        )}
        <ul>
          {SECTIONS.filter((s) => !s.admin || role === "admin").map((s) => (
            <li key={s.href}>
              <Link href={base + s.href} aria-current={current(s.href) ? "page" : undefined}>
                {s.label}
                {s.href === "/approvals" && pending > 0 ? (
                  <span className="nav-count" data-testid="nav-approvals-count" aria-label={`${pending} pending`}>
                    {" "}
                    {pending}
                  </span>
                ) : null}
              </Link>
            </li>
          ))}
        </ul>
        <div className="muted" style={{ fontSize: "0.9em", overflowWrap: "anywhere" }}>
          {email} · {role}
        </div>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </div>
    </nav>
  );
}
