import { KeepAliveClient } from "../http-client";
import { type CallCoordinates, type Group, type Subject, freshCall, replayCall } from "./types";

export interface HttpGateOptions {
  id: string;
  group: Group;
  label: string;
  floorId?: string;
  /** One or more instances sharing one database: operations go round-robin, as behind a balancer. */
  baseUrls: string[];
  apiKey: string;
  /** The completed calls replays read (filled in-process beforehand: see fillReplayPool). */
  replayPool: { tag: string; size: number };
  clients: { fresh: number[]; replay: number[] };
}

const TOOL = "charge_card";

const beginBody = (call: CallCoordinates) => ({ tool: TOOL, runId: call.runId, stepId: call.step, args: call.args });

/**
 * The agent API over HTTP, as an agent without the SDK would call it: a fresh pair is
 * POST /calls/begin (execute) then POST /calls/{id}/complete; a replay is one begin on a
 * completed key. Every answer is checked, so a misconfigured cell fails instead of measuring errors.
 */
export function httpGateSubject(options: HttpGateOptions): Subject {
  const headers = { authorization: `Bearer ${options.apiKey}` };
  const clients = options.baseUrls.map((url) => new KeepAliveClient(url, headers));
  const pick = (seq: number) => clients[seq % clients.length]!;

  const begin = async (client: KeepAliveClient, call: CallCoordinates, expected: string) => {
    const res = await client.post("/api/v1/calls/begin", beginBody(call));
    if (res.status !== 200 || res.body?.decision !== expected) {
      throw new Error(`begin ${call.runId}/${call.step}: expected ${expected}, got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    return res.body;
  };

  return {
    id: options.id,
    group: options.group,
    label: options.label,
    floorId: options.floorId,
    workloads: [
      {
        name: "fresh",
        unit: "pairs",
        clients: options.clients.fresh,
        op: async (seq, tag) => {
          const client = pick(seq);
          const claim = await begin(client, freshCall(tag, seq), "execute");
          const res = await client.post(`/api/v1/calls/${claim.callId}/complete`, {
            leaseToken: claim.leaseToken,
            outcome: "succeeded",
            result: { ok: true },
          });
          if (res.status !== 200) throw new Error(`complete answered ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        },
      },
      {
        name: "replay",
        unit: "begins",
        clients: options.clients.replay,
        op: async (seq) => {
          await begin(pick(seq), replayCall(options.replayPool.tag, seq, options.replayPool.size), "replay");
        },
      },
    ],
    close: async () => {
      for (const client of clients) client.close();
    },
  };
}
