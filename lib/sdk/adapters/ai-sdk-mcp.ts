import { type ToolSet, jsonSchema, tool } from "ai";
import { currentRun } from "../context";
import { type GatedToolConfig, stepFor } from "./ai-sdk";

/** The part of an MCP SDK client (v1 `@modelcontextprotocol/sdk` or v2 `@modelcontextprotocol/client`) the adapter uses. */
export interface McpToolClient {
  listTools(): Promise<{ tools: { name: string; description?: string; inputSchema: Record<string, unknown> }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown>; idempotencyKey?: string }): Promise<unknown>;
}

export interface McpToolsOptions {
  /** Per tool: the step or business scope, as for gateTools (e.g. `{ refund_order: { scope: "orderId" } }`). */
  tools?: Record<string, Pick<GatedToolConfig<unknown>, "scope" | "step" | "stepId">>;
}

/**
 * The `_meta` an MCP tool call through the Idemgate gateway carries (DESIGN.md, "MCP gateway"):
 * the current run (`gate.run`) and agent, and the step or scope the tool's config derives.
 */
export function idemgateMeta(toolName: string, input: unknown, toolCallId: string, config: Pick<GatedToolConfig<unknown>, "scope" | "step" | "stepId"> = {}): Record<string, string> {
  const run = currentRun();
  const { step, stepId, scope } = stepFor(toolName, config, input, toolCallId);
  const engineStep = step ?? stepId ?? run?.stepId;
  return {
    ...(run ? { "idemgate/runId": run.runId, "idemgate/agentId": run.agentId } : {}),
    ...(engineStep ? { "idemgate/stepId": engineStep } : {}),
    ...(scope ? { "idemgate/scope": scope } : {}),
  };
}

/**
 * An MCP server's tools (typically the Idemgate gateway, `/mcp/{upstream}`) as AI SDK tools whose
 * calls carry the run and step in `_meta`, and the model's toolCallId as the request's
 * `idempotencyKey`: the gateway then keys them as the in-process adapter would. The gate decides on
 * the gateway's side; the result (or the decision's isError result) goes to the model as the
 * gateway answered it.
 */
export async function mcpTools(client: McpToolClient, options: McpToolsOptions = {}): Promise<ToolSet> {
  const { tools } = await client.listTools();
  return Object.fromEntries(
    tools.map((listed) => [
      listed.name,
      tool({
        description: listed.description,
        inputSchema: jsonSchema(listed.inputSchema),
        execute: (input: unknown, { toolCallId }: { toolCallId: string }) =>
          client.callTool({
            name: listed.name,
            arguments: (input ?? {}) as Record<string, unknown>,
            _meta: idemgateMeta(listed.name, input, toolCallId, options.tools?.[listed.name]),
            idempotencyKey: toolCallId,
          }),
      }),
    ]),
  );
}
