import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalize, sha256Hex } from "../../lib/core/canonical";
import { DEFAULT_IGNORE_FIELDS } from "../../lib/core/canonical";
import { deriveKey } from "../../lib/core/keys";
import { FINGERPRINT_SECRET } from "../../lib/server/gate/install-fingerprinter";
import type { KeyStrategy } from "../../lib/core/policy";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { BeginResponseSchema } from "../../lib/contract/v1";
import { TestClient } from "../helpers/client";
import { createGate } from "../../lib/sdk";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { dumpTables, expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { scalar, sql } from "../helpers/sql";

/**
 * What anyone who can read a fingerprint or a key could do before: hash every candidate the way the
 * gate did (lib/core/canonical.ts, lib/core/keys.ts are public) until one matches.
 */
// Four digits: the search is exhaustive (the negative case walks all of it), and the keyed digests
// are out of reach whatever the space; six digits cost the suite ~40 s per provider for nothing more.
const PIN_DIGITS = 4;

function bruteForcePin(args: (pin: string) => unknown, matches: (canonicalArgs: string) => boolean): string | null {
  for (let n = 0; n < 10 ** PIN_DIGITS; n++) {
    const pin = String(n).padStart(PIN_DIGITS, "0");
    if (matches(canonicalize(args(pin), DEFAULT_IGNORE_FIELDS))) return pin;
  }
  return null;
}

/**
 * Keyed args fingerprints (issue #16, item 3): a fingerprint that agents and viewers read no longer
 * gives away a redacted value, every instance on one database keys alike, and records written
 * with the old unkeyed fingerprint keep their paraphrase and mismatch semantics.
 */
describe.each(PROVIDERS)("%s: keyed args fingerprints", (provider) => {
  let db: TestDatabase;
  let servers: TestServer[];
  let clients: TestClient[];
  let admin: AdminClient;
  let projectId: string;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url);
    projectId = project.projectId;
    // Two instances on one database from the start: both ask for the secret on their first begin.
    servers = await Promise.all([0, 1].map(() => startServer(db.url, { IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN })));
    clients = servers.map((server) => new TestClient(server.baseUrl, project.apiKey));
    admin = new AdminClient(servers[0]!.baseUrl, project.projectId);
  });

  afterAll(async () => {
    await Promise.all((servers ?? []).map((server) => server.stop()));
    await db?.drop();
  });

  it("every instance keys fingerprints with the one secret the first of them stored", async () => {
    const args = { orderId: "o-1", amount: 42 };
    const answers = await Promise.all(
      [0, 1, 0, 1].map((i, n) => clients[i]!.begin({ tool: "charge_card", runId: uniqueRun(`race${n}`), stepId: "charge", args })),
    );
    const fingerprints = await Promise.all(answers.map(async (answer, n) => (await clients[n % 2]!.status(expectDecision(answer, "execute").callId)).argsFingerprint));
    expect(new Set(fingerprints).size).toBe(1);
    expect(fingerprints[0]).not.toBe(sha256Hex(canonicalize(args)));
    // One fingerprint key for all instances (the other rows are the shared keys' checks, shared-keys.ts).
    expect(await scalar(db.url, "SELECT COUNT(*) FROM install_secrets WHERE name = $1", [FINGERPRINT_SECRET])).toBe(1);
  });

  it("a record stored with the old unkeyed fingerprint replays its args without a mismatch, and flags other args", async () => {
    const args = { to: "ada@example.com", body: "Your order shipped", request_id: "r-1" };
    const runId = uniqueRun("legacy");
    const call = await runOnce(clients[0]!, { tool: "send_email", runId, stepId: "notify", args });
    await sql(db.url, "UPDATE call_records SET args_fingerprint = $1 WHERE id = $2", [sha256Hex(canonicalize(args)), call.callId]);

    const paraphrase = { body: "Your order shipped", to: "ada@example.com", request_id: "r-2" };
    const same = expectDecision(await clients[1]!.begin({ tool: "send_email", runId, stepId: "notify", args: paraphrase }), "replay");
    expect(same.argsMismatch).toBe(false);
    const other = expectDecision(await clients[0]!.begin({ tool: "send_email", runId, stepId: "notify", args: { ...args, body: "Refunded" } }), "replay");
    expect(other.argsMismatch).toBe(true);
  });

  it("numbers are compared as written (issue #35 §2): two accounts past 2^53 are two payloads, a mismatch under the step strategy and two keys under the args strategy; 1.0 is still 1", async () => {
    const begin = async (client: TestClient, text: string) => {
      const res = await client.raw("POST", "/api/v1/calls/begin", text);
      expect(res.status).toBe(200);
      return BeginResponseSchema.parse(await res.json());
    };
    const runId = uniqueRun("exact");
    const body = (account: string) => `{"tool":"transfer","runId":"${runId}","stepId":"send","args":{"account":${account},"amount":1.0}}`;
    const first = expectDecision(await begin(clients[0]!, body("9007199254740993")), "execute");
    await clients[0]!.complete(first.callId, { leaseToken: first.leaseToken, outcome: "succeeded", result: { ok: true } });
    const other = expectDecision(await begin(clients[1]!, body("9007199254740992")), "replay");
    expect(other.argsMismatch).toBe(true);
    const same = expectDecision(await begin(clients[1]!, body("9007199254740993.0").replace('"amount":1.0', '"amount":1')), "replay");
    expect(same.argsMismatch).toBe(false);

    // The SDK over HTTP: a BigInt account goes as the exact number (JSON.stringify alone throws on it).
    const sdk = createGate({ baseUrl: servers[0]!.baseUrl, apiKey: clients[0]!.apiKey });
    const sdkRun = uniqueRun("exact-sdk");
    expect((await sdk.call({ tool: "transfer", runId: sdkRun, step: "send", args: { account: 9007199254740993n } }, () => "sent")).status).toBe("executed");
    const sdkOther = await sdk.call({ tool: "transfer", runId: sdkRun, step: "send", args: { account: 9007199254740992n } }, () => "sent again");
    expect(sdkOther).toMatchObject({ status: "replayed", argsMismatch: true });

    const tool = uniqueTool("exact_args");
    await admin.put(tool, { keyStrategy: "args", loop: { enabled: false } });
    const byArgs = (account: string) => `{"tool":"${tool}","runId":"${runId}","args":{"account":${account}}}`;
    const a = expectDecision(await begin(clients[0]!, byArgs("12345678901234567890123")), "execute");
    await clients[0]!.complete(a.callId, { leaseToken: a.leaseToken, outcome: "succeeded", result: { ok: true } });
    expectDecision(await begin(clients[1]!, byArgs("12345678901234567890124")), "execute");
  });

  it.each<[string, KeyStrategy, string | undefined]>([
    ["the args key strategy", "args", "verify"],
    ["the step strategy without a step or scope", "step", undefined],
  ])("keys derived from the args under %s are keyed; a record stored under the old unkeyed key keeps deciding its calls", async (_, keyStrategy, stepId) => {
    const tool = uniqueTool(`legacy_${keyStrategy}`);
    await admin.put(tool, { keyStrategy, loop: { enabled: false } });
    const runId = uniqueRun("legacy-key");
    const args = { account: "acct_9", amount: 12, request_id: "r-1" };
    const legacyKey = deriveKey(keyStrategy, { projectId, runId, tool, stepId: null, scope: null, toolCallId: null, canonicalArgs: canonicalize(args) });
    const first = await runOnce(clients[0]!, { tool, runId, stepId, args });
    expect((await clients[0]!.status(first.callId)).key).not.toBe(legacyKey);

    // What an older version stored: the same record under the unkeyed key.
    await sql(db.url, "UPDATE call_records SET key = $1 WHERE id = $2", [legacyKey, first.callId]);
    await sql(db.url, "UPDATE events SET key = $1 WHERE call_id = $2", [legacyKey, first.callId]);
    const paraphrase = { amount: 12, account: "acct_9", request_id: "r-2" };
    for (const client of clients) {
      const again = expectDecision(await client.begin({ tool, runId, stepId, args: paraphrase }), "replay");
      expect(again.callId).toBe(first.callId);
      expect(again.argsMismatch).toBe(false);
    }
    // Other args are another key, stored keyed.
    const other = expectDecision(await clients[1]!.begin({ tool, runId, stepId, args: { ...args, amount: 13 } }), "execute");
    expect(other.callId).not.toBe(first.callId);
    expect(await scalar(db.url, "SELECT COUNT(*) FROM call_records WHERE key = $1", [legacyKey])).toBe(1);
  });

  it("a scope the policy derives from a redacted field is stored and shown masked, its key is keyed, and a record under the old key keeps deciding", async () => {
    const tool = uniqueTool("unlock_door");
    // One unlock per PIN whatever the run: the scope strategy keys on (project, tool, scope) only.
    await admin.put(tool, { keyStrategy: "scope", scopeFrom: ["/door", "/code/pin"], redactFields: ["PIN"], loop: { enabled: false } });
    const args = (pin: string) => ({ door: "front", code: { pin } });
    const first = await runOnce(clients[0]!, { tool, runId: uniqueRun("door"), args: args("4938") });
    const status = await clients[1]!.status(first.callId);
    // The door is not secret; the PIN shows as a tag keyed with the install's secret.
    expect(status.scope).toMatch(/^\/door=front&\/code\/pin=\[REDACTED [0-9a-f]{16}\]$/);
    // As a token of its own: a 4-digit string also turns up inside timestamps and random ids by chance.
    expect(await dumpTables(db.url, ["call_records", "events"])).not.toMatch(/(?<![0-9A-Za-z])4938(?![0-9A-Za-z])/);
    const keyOf = (pin: string) => deriveKey("scope", { projectId, runId: "", tool, scope: `/door=front&/code/pin=${pin}`, canonicalArgs: "" });
    expect(status.key).not.toBe(keyOf("4938"));
    // The same search finds the PIN under the old, unkeyed key: the test can fail.
    const oldKey = keyOf("0042");
    const search = (matches: (pin: string) => boolean) => {
      for (let n = 0; n < 10 ** PIN_DIGITS; n++) if (matches(String(n).padStart(PIN_DIGITS, "0"))) return String(n).padStart(PIN_DIGITS, "0");
      return null;
    };
    expect(search((pin) => keyOf(pin) === oldKey)).toBe("0042");
    expect(search((pin) => keyOf(pin) === status.key || status.scope === `/door=front&/code/pin=${pin}`)).toBeNull();

    // Same PIN from another run on the other instance: the same scope, a replay; another PIN runs.
    const again = expectDecision(await clients[1]!.begin({ tool, runId: uniqueRun("door"), args: args("4938") }), "replay");
    expect(again.callId).toBe(first.callId);
    const other = await runOnce(clients[0]!, { tool, runId: uniqueRun("door"), args: args("1111") });
    expect((await clients[0]!.status(other.callId)).scope).not.toBe(status.scope);

    // What an older version stored: the unkeyed key (and the scope in clear). It keeps deciding.
    await sql(db.url, "UPDATE call_records SET key = $1 WHERE id = $2", [keyOf("1111"), other.callId]);
    await sql(db.url, "UPDATE events SET key = $1 WHERE call_id = $2", [keyOf("1111"), other.callId]);
    for (const client of clients) {
      const replay = expectDecision(await client.begin({ tool, runId: uniqueRun("door"), args: args("1111") }), "replay");
      expect(replay.callId).toBe(other.callId);
    }
  }, 120_000);

  // Last: the search holds this process for seconds, and a server closes idle keep-alive sockets meanwhile.
  it("a redacted PIN cannot be recovered from the fingerprint or the key an agent reads", async () => {
    const tool = uniqueTool("verify_pin");
    // Keyed on the args: the key is a digest of them too.
    await admin.put(tool, { keyStrategy: "args", redactFields: ["pin"] });
    const args = (pin: string) => ({ account: "acct_7", pin });
    const runId = uniqueRun("pin");
    const call = await runOnce(clients[0]!, { tool, runId, stepId: "verify", args: args("4938") });
    const status = await clients[1]!.status(call.callId);
    const [row] = await sql<{ args: string }>(db.url, "SELECT args FROM call_records WHERE id = $1", [call.callId]);
    expect(row!.args).not.toContain("4938");
    const keyOf = (canonicalArgs: string) => deriveKey("args", { projectId, runId, tool, canonicalArgs });
    // The same search finds a PIN under the old, unkeyed fingerprint and key: the test can fail.
    const oldFingerprint = sha256Hex(canonicalize(args("0042")));
    const oldKey = keyOf(canonicalize(args("0043")));
    expect(bruteForcePin(args, (c) => sha256Hex(c) === oldFingerprint)).toBe("0042");
    expect(bruteForcePin(args, (c) => keyOf(c) === oldKey)).toBe("0043");
    expect(bruteForcePin(args, (c) => sha256Hex(c) === status.argsFingerprint || keyOf(c) === status.key)).toBeNull();
  }, 180_000);

});
