import { AppError } from "../app-error";
import { OutboundRefusedError } from "./outbound-refused";

/** The outbound guard's URL check (OutboundGuard.assertAllowed), as a service is handed it. */
export type AssertAllowed = (projectId: string, url: string) => Promise<unknown>;

/**
 * An address an admin registers (an upstream, an alert channel) goes through the allowlist's URL
 * check when it is saved, not only when it is first called: a refused one is a 400 on its field,
 * and nothing is stored. The guard still checks every call (and the address each name resolves
 * to), since the allowlist can change after registration.
 */
export async function assertRegistrable(assertAllowed: AssertAllowed, projectId: string, url: string, field: string): Promise<void> {
  try {
    await assertAllowed(projectId, url);
  } catch (error) {
    if (!(error instanceof OutboundRefusedError)) throw error;
    const message = `the outbound allowlist refuses ${url.slice(0, 200)}: ${error.message}; add its host in Settings → Outbound allowlist first`;
    throw new AppError("invalid_input", message, { issues: [{ path: [field], message, code: "custom" }] });
  }
}
