"use client";

import { type ReactNode, createContext, useContext } from "react";
import type { MemberRole } from "@/lib/store/ports/operator-store";

interface ProjectValue {
  projectId: string;
  role: MemberRole;
}

const Context = createContext<ProjectValue | null>(null);

/** The project a page shows and the operator's role in it (decided on the server). */
export function ProjectProvider({ value, children }: { value: ProjectValue; children: ReactNode }) {
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

const RANK: Record<MemberRole, number> = { viewer: 1, operator: 2, admin: 3 };

export function useProject(): ProjectValue & { can: (needed: MemberRole) => boolean } {
  const value = useContext(Context);
  if (!value) throw new Error("useProject outside a ProjectProvider");
  return { ...value, can: (needed) => RANK[value.role] >= RANK[needed] };
}
