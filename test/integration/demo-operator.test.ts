import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD } from "../../lib/auth/demo-password";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { OperatorClient, postSignIn } from "../helpers/operator-client";
import { type TestServer, startServer } from "../helpers/server";

const signIn = (server: TestServer, password: string, headers: Record<string, string> = {}) =>
  postSignIn(server.baseUrl, DEMO_ADMIN_EMAIL, password, headers);

/**
 * The zero-config demo operator (issue #16, item 7): its well-known password signs in from this
 * machine only, and the log says so. A proxy on this machine is trusted here so a request can
 * come "from" another address; without one, every non-loopback peer is refused the same way.
 */
describe("demo operator", () => {
  let db: TestDatabase;
  let server: TestServer;
  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    server = await startServer(db.url, { IDEMGATE_SEED_DEMO: "true", IDEMGATE_TRUSTED_PROXIES: "loopback", IDEMGATE_SIGN_IN_RATE_LIMIT: "100000" });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("the demo password signs in from localhost, and the start log says it works there only", async () => {
    expect((await signIn(server, DEMO_ADMIN_PASSWORD)).status).toBe(200);
    expect(server.output()).toMatch(/demo password signs in only from this machine/);
  });

  it("from another address the demo password is refused, saying why", async () => {
    const res = await signIn(server, DEMO_ADMIN_PASSWORD, { "x-forwarded-for": "192.168.1.23" });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toMatch(/only from this machine/);
  });

  it("once the demo admin picks another password, it signs in from anywhere", async () => {
    const local = await OperatorClient.signIn(server.baseUrl, DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD);
    const changed = await local.raw("POST", "/api/auth/change-password", { currentPassword: DEMO_ADMIN_PASSWORD, newPassword: "a-real-password-9" });
    expect(changed.status).toBe(200);
    expect((await signIn(server, "a-real-password-9", { "x-forwarded-for": "192.168.1.23" })).status).toBe(200);
  });
});
