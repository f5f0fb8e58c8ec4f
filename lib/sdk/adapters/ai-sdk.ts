import type { InferToolInput, ToolExecutionOptions, ToolSet } from "ai";
import type { Gate } from "../gate";
import type { CallResult, CallSpec } from "../types";
import { type GatedToolConfig, GatedToolError, callOptionsFor, defaultToModel, stepFor } from "./tool-config";

export { type GatedToolConfig, GatedToolError, stepFor } from "./tool-config";

export interface GateToolsOptions<TOOLS extends ToolSet> {
  tools?: { [K in keyof TOOLS]?: GatedToolConfig<InferToolInput<TOOLS[K]>> };
  /** What the model sees for a call that produced no value (refused, in_progress, blocked, …). */
  toModel?: (result: CallResult<unknown>, toolName: string) => unknown;
  /** Sees every gated call's result: for logs and metrics. */
  onResult?: (result: CallResult<unknown>, info: { toolName: string; toolCallId: string }) => void;
}

type ExecuteFn = (input: unknown, options: ToolExecutionOptions) => unknown;

/**
 * Wraps every tool with an `execute` so it runs through the gate: the step comes from the tool's
 * config (default: tool name + the scope at a declared args path, else the canonical args), the
 * model's toolCallId is passed along and recorded, and the original tool receives the gate's key via
 * `currentToolCall().idempotencyKey`. Call the model inside `gate.run({ runId }, …)`.
 */
export function gateTools<TOOLS extends ToolSet>(gate: Gate, tools: TOOLS, options: GateToolsOptions<TOOLS> = {}): TOOLS {
  const wrapped: Record<string, unknown> = {};
  for (const [toolName, tool] of Object.entries(tools)) {
    const execute = (tool as { execute?: ExecuteFn }).execute;
    if (typeof execute !== "function") {
      wrapped[toolName] = tool;
      continue;
    }
    const config = (options.tools?.[toolName as keyof TOOLS] ?? {}) as GatedToolConfig<unknown>;
    wrapped[toolName] = {
      ...tool,
      execute: async (input: unknown, execOptions: ToolExecutionOptions) => {
        const { toolCallId } = execOptions;
        const spec: CallSpec = { tool: toolName, toolCallId, args: input, ...stepFor(toolName, config, input, toolCallId) };
        const result = await gate.call(
          spec,
          ({ signal }) => finalValue(execute.call(tool, input, { ...execOptions, abortSignal: combine(execOptions.abortSignal, signal) })),
          callOptionsFor(config, input, execOptions.abortSignal),
        );
        options.onResult?.(result, { toolName, toolCallId });
        if (result.ok) return result.value;
        if (result.status === "failed") throw new GatedToolError(result);
        return (options.toModel ?? defaultToModel)(result, toolName);
      },
    };
  }
  return wrapped as TOOLS;
}

/** A streaming tool's final output is its last yielded value, as in the AI SDK. */
async function finalValue(output: unknown): Promise<unknown> {
  const value = await output;
  if (value === null || typeof value !== "object" || !(Symbol.asyncIterator in value)) return value;
  let last: unknown;
  for await (const part of value as AsyncIterable<unknown>) last = part;
  return last;
}

function combine(a: AbortSignal | undefined, b: AbortSignal): AbortSignal {
  return a ? AbortSignal.any([a, b]) : b;
}
