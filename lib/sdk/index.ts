// Idemgate agent SDK: run a tool at most once per key, from any Node agent runtime.
export { createGate, type CreateGateOptions, type Gate, type GateClientOptions, type OperationOutcome, type ToolDefinition } from "./gate";
export { type CompensateOptions, type CompensationExecutor, type CompensationOutcome } from "./compensate";
export { accepted, isAccepted, type AcceptedOperation } from "./accepted";
export { currentRun, currentToolCall, type RunContext, type RunInit } from "./context";
export { GateError, LeaseLostError, ToolError, isRetryableError, toToolErrorInfo, type ToolErrorInfo } from "./errors";
export { describeForModel } from "./results";
export { HttpTransport, type HttpTransportOptions } from "./http-transport";
export { InProcessTransport, type InProcessOptions } from "./in-process-transport";
export type {
  Backoff,
  CallOptions,
  CallResult,
  CallSpec,
  CallStatusName,
  Check,
  CheckOutcome,
  CompensationSpec,
  Cost,
  PreviewOf,
  Exec,
  ExecContext,
  GateTransport,
  LoopWarning,
  Verify,
  VerifyOutcome,
} from "./types";
