import { useQuery } from "@tanstack/react-query";
import { MeSchema } from "@/lib/contract/operator";
import { fetchJson } from "../fetch-json";
import { queryKeys } from "./keys";

export function useMeQuery() {
  return useQuery({ queryKey: queryKeys.me(), queryFn: () => fetchJson("/api/v1/operator/me", MeSchema), staleTime: 60_000 });
}
