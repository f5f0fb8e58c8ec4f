import { MAX_ID_LENGTH, badIdField } from "../../core/identity";
import { AppError } from "../app-error";

/**
 * The wire refuses invisible characters and over-long ids (contract/tool-name.ts); callers in the
 * same process (the MCP and HTTP gateways, the SDK's in-process transport) reach the service
 * without it: an upstream's tool name or a gateway path with a zero-width character would skip the
 * policy of the tool it looks like.
 */
export function assertVisibleIds(input: Parameters<typeof badIdField>[0]): void {
  const bad = badIdField(input);
  if (bad === null) return;
  const what = bad.field === "tool" ? "a tool name" : `an id (${bad.field})`;
  const message = bad.problem === "length" ? `${what} must be 1 to ${MAX_ID_LENGTH} characters` : `control and zero-width characters are not allowed in ${what}`;
  throw new AppError("invalid_input", message, { issues: [{ path: [bad.field], message, code: bad.problem === "length" ? "too_big" : "invisible_characters" }] });
}
