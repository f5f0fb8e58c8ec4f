import type { MemberRole } from "../store/ports/operator-store";

export const ROLES = ["viewer", "operator", "admin"] as const satisfies readonly MemberRole[];

/** Each role includes the ones before it: viewer reads; operator also approves, denies, evicts, resolves; admin also manages keys, members and policies. */
const RANK: Record<MemberRole, number> = { viewer: 1, operator: 2, admin: 3 };

export function roleAllows(role: MemberRole, needed: MemberRole): boolean {
  return RANK[role] >= RANK[needed];
}
