import { expect } from "vitest";

/**
 * A problem type by its slug: its page on the gate (`https://<gate>/problems/<slug>`), or the URN
 * a middleware with its gate in process (no URL) answers with.
 */
export function problemType(slug: string) {
  return expect.stringMatching(new RegExp(`^(?:urn:idemgate:problem:|https?://[^/]+/problems/)${slug}$`));
}
