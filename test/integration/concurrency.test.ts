import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BeginResponse } from "../../lib/contract/v1";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type Provider, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { sharedServerPair } from "../helpers/shared-server";

const N = 100;

function tally(decisions: BeginResponse[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const d of decisions) counts[d.decision] = (counts[d.decision] ?? 0) + 1;
  return counts;
}

/** SQLite once more with commits on a writer thread (#21 item 3): the unique key still decides across processes. */
const VARIANTS: [label: string, provider: Provider, env: Record<string, string>][] = [
  ...PROVIDERS.map((provider): [string, Provider, Record<string, string>] => [provider, provider, {}]),
  ["sqlite, writer thread", "sqlite", { IDEMGATE_SQLITE_WRITER: "worker" }],
];

describe.each(VARIANTS)("%s: N concurrent identical begins over HTTP, two server processes", (_label, provider, env) => {
  // Settings of their own (the writer thread) need servers of their own; the others use the run's
  // shared pair of instances, in a project of this file's own.
  let db: TestDatabase | undefined;
  let own: TestServer[] = [];
  let clients: TestClient[];

  beforeAll(async () => {
    if (Object.keys(env).length === 0) {
      const pair = await sharedServerPair(provider);
      const project = await createTestProject(pair[0].databaseUrl);
      clients = pair.map((s) => new TestClient(s.baseUrl, project.apiKey));
      return;
    }
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url);
    own = await Promise.all([startServer(db.url, env), startServer(db.url, env)]);
    clients = own.map((s) => new TestClient(s.baseUrl, project.apiKey));
  });

  afterAll(async () => {
    await Promise.all(own.map((s) => s.stop()));
    await db?.drop();
  });

  it(`one server: ${N} begins for one key → exactly 1 execute, the rest in_progress`, async () => {
    const request = { tool: "charge_card", runId: "run_one", stepId: "charge", args: { amount: 42 } };
    const decisions = await Promise.all(Array.from({ length: N }, () => clients[0]!.begin(request)));
    expect(tally(decisions)).toEqual({ execute: 1, in_progress: N - 1 });
    const callIds = new Set(decisions.map((d) => ("callId" in d ? d.callId : null)));
    expect(callIds.size).toBe(1);
  });

  it(`two servers: ${N} begins split across processes → exactly 1 execute`, async () => {
    const request = { tool: "charge_card", runId: "run_two", stepId: "charge", args: { amount: 42 } };
    const decisions = await Promise.all(Array.from({ length: N }, (_, i) => clients[i % 2]!.begin(request)));
    expect(tally(decisions)).toEqual({ execute: 1, in_progress: N - 1 });
  });

  it(`with waitMs: the latch turns ${N - 1} waiters into replays of the single outcome`, async () => {
    // One tool-call id: the same call sent again, not the model deciding again. A begin that reaches
    // the gate only after the outcome (a loaded machine) is then a transport retry's replay, not a
    // loop step, which would be blocked from the third on now that a run's steps are decided in turn.
    const request = { tool: "send_email", runId: "run_latch", stepId: "confirm", toolCallId: "tc_latch", args: { to: "a@example.com" }, waitMs: 8_000 };
    let executed: Promise<unknown> | undefined;
    const decisions = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const decision = await clients[i % 2]!.begin(request);
        if (decision.decision === "execute") {
          executed = (async () => {
            await new Promise((r) => setTimeout(r, 300));
            await clients[0]!.complete(decision.callId, {
              leaseToken: decision.leaseToken,
              outcome: "succeeded",
              result: { messageId: "m_1" },
            });
          })();
        }
        return decision;
      }),
    );
    await executed;
    expect(tally(decisions)).toEqual({ execute: 1, replay: N - 1 });
    for (const d of decisions) {
      if (d.decision === "replay") expect(d.result).toEqual({ messageId: "m_1" });
    }
    const replays = decisions.flatMap((d) => (d.decision === "replay" ? [d.replays] : []));
    // Each replay is counted once, atomically: the counters are exactly 1..N-1.
    expect(replays.sort((a, b) => a - b)).toEqual(Array.from({ length: N - 1 }, (_, i) => i + 1));
  });
});
