/**
 * Async operations (DESIGN.md "Additions"): a tool that starts a long-running job returns
 * `accepted({ operationId })` instead of a result. The gate then keeps the operation id, and every
 * later call on the key answers it (status `accepted`) instead of starting the job again.
 */
const BRAND = Symbol.for("idemgate.accepted");

export interface AcceptedOperation {
  operationId: string;
  statusUrl?: string;
}

export function accepted(operation: AcceptedOperation): AcceptedOperation {
  const value: AcceptedOperation = {
    operationId: operation.operationId,
    ...(operation.statusUrl !== undefined ? { statusUrl: operation.statusUrl } : {}),
  };
  // Not enumerable: the value stays plain JSON, the brand only tells the SDK what exec meant.
  Object.defineProperty(value, BRAND, { value: true });
  return value;
}

export function isAccepted(value: unknown): value is AcceptedOperation {
  return typeof value === "object" && value !== null && BRAND in value;
}
