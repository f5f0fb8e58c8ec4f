import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False in the server's HTML and during hydration, true once React owns the page. A control whose
 * change the server's HTML cannot act on (it only updates the URL through React) is disabled until
 * then: a choice made before hydration would be reset by it, silently (seen in a CI run: a range
 * picked right after the page loaded never reached the URL).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
