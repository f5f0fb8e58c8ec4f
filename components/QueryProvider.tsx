"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { isFinal } from "@/lib/dashboard/fetch-json";

/** One query cache per browser tab; 4xx answers are not retried (they will not change). */
export function QueryProvider({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: { retry: (count, error) => !isFinal(error) && count < 2, refetchOnWindowFocus: false, staleTime: 5_000 },
        },
      }),
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
