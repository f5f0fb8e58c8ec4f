import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalize, sha256Hex } from "../../lib/core/canonical";
import { DEFAULT_IGNORE_FIELDS } from "../../lib/core/canonical";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { scalar, sql } from "../helpers/sql";

/** What anyone who can read a fingerprint could do before: hash every candidate the way the gate did. */
function bruteForcePin(fingerprint: string, args: (pin: string) => unknown): string | null {
  for (let n = 0; n < 1_000_000; n++) {
    const pin = String(n).padStart(6, "0");
    if (sha256Hex(canonicalize(args(pin), DEFAULT_IGNORE_FIELDS)) === fingerprint) return pin;
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

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url);
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
    expect(await scalar(db.url, "SELECT COUNT(*) FROM install_secrets")).toBe(1);
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

  // Last: the search holds this process for seconds, and a server closes idle keep-alive sockets meanwhile.
  it("a redacted 6-digit PIN cannot be recovered from the fingerprint an agent reads", async () => {
    const tool = uniqueTool("verify_pin");
    await admin.put(tool, { redactFields: ["pin"] });
    const args = (pin: string) => ({ account: "acct_7", pin });
    const call = await runOnce(clients[0]!, { tool, runId: uniqueRun("pin"), stepId: "verify", args: args("493817") });
    const status = await clients[1]!.status(call.callId);
    const [row] = await sql<{ args: string }>(db.url, "SELECT args FROM call_records WHERE id = $1", [call.callId]);
    expect(row!.args).not.toContain("493817");
    // The same search finds a PIN under the old, unkeyed fingerprint: the test can fail.
    expect(bruteForcePin(sha256Hex(canonicalize(args("000042"))), args)).toBe("000042");
    expect(bruteForcePin(status.argsFingerprint, args)).toBeNull();
  }, 120_000);
});
