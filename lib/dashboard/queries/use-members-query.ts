import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { type AddMemberSchema, MemberListSchema, MemberSchema } from "@/lib/contract/operator";
import type { MemberRole } from "@/lib/store/ports/operator-store";
import { fetchJson, postJson, projectApi } from "../fetch-json";
import { queryKeys } from "./keys";
import { refetchAfterChange } from "./after-change";

const membersUrl = (projectId: string) => `${projectApi(projectId).operator}/members`;
const memberUrl = (projectId: string, userId: string) => `${membersUrl(projectId)}/${encodeURIComponent(userId)}`;

/** The project's members and their roles (admin role). */
export function useMembersQuery(projectId: string, enabled = true) {
  return useQuery({ queryKey: queryKeys.members(projectId), queryFn: () => fetchJson(membersUrl(projectId), MemberListSchema), enabled });
}

/** Add, re-role or remove a member (admin role); the list is refetched after each. */
export function useMemberMutations(projectId: string) {
  const client = useQueryClient();
  const onSettled = () => refetchAfterChange(client, ["members"]);
  return {
    add: useMutation({ mutationFn: (body: z.output<typeof AddMemberSchema>) => postJson(membersUrl(projectId), MemberSchema, body), onSettled }),
    setRole: useMutation({
      mutationFn: ({ userId, role }: { userId: string; role: MemberRole }) => postJson(memberUrl(projectId, userId), MemberSchema, { role }, "PUT"),
      onSettled,
    }),
    remove: useMutation({ mutationFn: (userId: string) => fetchJson(memberUrl(projectId, userId), MemberSchema, { method: "DELETE" }), onSettled }),
  };
}
