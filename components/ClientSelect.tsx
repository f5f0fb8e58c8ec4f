"use client";

import type { ComponentProps } from "react";
import { useHydrated } from "@/lib/dashboard/use-hydrated";

/**
 * A select whose change only React can act on (it writes the URL or a component's state): disabled
 * until the page is hydrated, because a choice made before then would be reset by hydration and lost.
 */
export function ClientSelect({ disabled, ...props }: ComponentProps<"select">) {
  const hydrated = useHydrated();
  return <select {...props} disabled={disabled || !hydrated} />;
}
