import { readFileSync } from "node:fs";
import path from "node:path";
import { BeginResponseSchema } from "@/lib/contract/v1";
import { ResendRequestSchema } from "@/lib/contract/resends";

/** The agent side of the e2e: the seeded demo project's API key, plain fetches, responses parsed with the contract. */
export function demoKey(dataDir = process.env.E2E_DATA_DIR!): string {
  return readFileSync(path.join(dataDir, "demo-key.txt"), "utf8").trim();
}

export function agentClient(baseURL: string, key: string) {
  async function call(method: string, url: string, body?: unknown): Promise<unknown> {
    const res = await fetch(baseURL + url, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json: unknown = await res.json();
    if (!res.ok) throw new Error(`${method} ${url} → ${res.status}: ${JSON.stringify(json)}`);
    return json;
  }
  return {
    begin: async (body: Record<string, unknown>) => BeginResponseSchema.parse(await call("POST", "/api/v1/calls/begin", body)),
    complete: (callId: string, leaseToken: string, result: unknown) =>
      call("POST", `/api/v1/calls/${callId}/complete`, { leaseToken, outcome: "succeeded", result }),
    askResend: async (callId: string, reason: string) => ResendRequestSchema.parse(await call("POST", `/api/v1/calls/${callId}/resend`, { reason })),
    resendRequest: async (id: string) => ResendRequestSchema.parse(await call("GET", `/api/v1/resend-requests/${id}`)),
  };
}

export type Agent = ReturnType<typeof agentClient>;

/** One tool call the way the SDK makes it: begin, run (if told to), complete. Returns the callId. */
export async function runOnce(agent: Agent, body: Record<string, unknown>): Promise<{ callId: string; decision: string }> {
  const decision = await agent.begin(body);
  if (decision.decision === "execute") await agent.complete(decision.callId, decision.leaseToken, { ok: true, tool: body.tool });
  return { callId: "callId" in decision ? String(decision.callId) : "", decision: decision.decision };
}
