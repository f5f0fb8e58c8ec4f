import type { BeginRequest } from "../../lib/contract/v1";
import type { AdminClient } from "./admin-client";
import type { TestClient } from "./client";
import { expectDecision, runOnce, sleep, uniqueRun, uniqueTool } from "./policy-fixtures";

/**
 * Retry storms over real HTTP, made fast: one-second windows (the policy allows windowSeconds ≥ 1)
 * and a detector pass every few hundred ms (IDEMGATE_STORM_INTERVAL_MS in the server's env).
 * Loop detection is off for these tools so that repeats stay replays instead of `blocked`.
 */
export const FAST_STORM_POLICY = { storm: { windowSeconds: 1, minHits: 20, factor: 5 }, loop: { enabled: false } };

export interface StormTool {
  tool: string;
  /** One completed call per run: beginning any of them again is a replay (a dedup hit). */
  requests: BeginRequest[];
  keys: string[];
}

export async function prepareStormTool(admin: AdminClient, client: TestClient, label: string, runs = 4): Promise<StormTool> {
  const tool = uniqueTool(label);
  await admin.put(tool, FAST_STORM_POLICY, `test: fast storms for ${label}`);
  const requests: BeginRequest[] = [];
  const keys: string[] = [];
  for (let i = 0; i < runs; i++) {
    const request = { tool, runId: uniqueRun(`${label}${i}`), stepId: "act", args: { n: i } };
    keys.push((await runOnce(client, request)).key);
    requests.push(request);
  }
  return { tool, requests, keys };
}

/**
 * `perSecond` replays for `ms`, on a fixed schedule, rotating over runs and gate instances. A
 * sender that fell behind (a loaded machine) skips the slots it missed rather than catching up:
 * a steady rate must never turn into a burst.
 */
export async function pacedReplays(clients: TestClient[], target: StormTool, perSecond: number, ms: number): Promise<number> {
  const started = Date.now();
  const interval = 1000 / perSecond;
  let sent = 0;
  for (let i = 0; started + i * interval < started + ms; i++) {
    const due = started + i * interval;
    if (Date.now() - due > interval) continue;
    await sleep(Math.max(0, due - Date.now()));
    const client = clients[i % clients.length]!;
    expectDecision(await client.begin(target.requests[i % target.requests.length]!), "replay");
    sent++;
  }
  return sent;
}

/**
 * A burst of replays as fast as the gate answers (sixteen senders at once, so that on a loaded
 * machine the burst is bounded by the gate, not by round trips); `perRun[i]` replays of
 * run i, interleaved so that every slice of the burst has every run in it — wherever a window
 * boundary cuts the burst, each window sees all the runs, the heaviest run and key first.
 */
export async function burstReplays(clients: TestClient[], target: StormTool, perRun: number[]): Promise<void> {
  const total = perRun.reduce((a, b) => a + b, 0);
  const order = perRun
    .flatMap((count, run) => Array.from({ length: count }, (_, i) => ({ run, at: (i + 0.5) / count })))
    .sort((a, b) => a.at - b.at || a.run - b.run)
    .map((slot) => slot.run);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < total; i = next++) {
        expectDecision(await clients[i % clients.length]!.begin(target.requests[order[i]!]!), "replay");
      }
    }),
  );
}

/**
 * A burst, repeated until the detector has seen a storm on the tool (`seen`: any incident, open or
 * closed). On a loaded machine one burst can come out too slow to put `minHits` replays into one
 * window, which says nothing about the detector. A burst the detector has not answered within 15 s
 * did not qualify (it judges every window a second after it ends); by then the trailing baseline
 * (ten 1 s windows) is quiet again, so the next burst is judged against the same quiet baseline
 * as the first. Never a second burst once an incident exists: each test still sees one.
 */
export async function burstUntilStorm(clients: TestClient[], target: StormTool, perRun: number[], seen: () => Promise<boolean>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await burstReplays(clients, target, perRun);
    try {
      await waitFor(async () => (await seen()) || null, 15_000, `a storm on ${target.tool}`);
      return;
    } catch (error) {
      if (attempt === 4) throw error;
    }
  }
}

/** Polls `probe` until it returns something truthy. */
export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}
