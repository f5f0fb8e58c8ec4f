import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { OPERATOR_ENV, ROOT, postSignIn } from "../helpers/operator-client";
import { type TestServer, startServer } from "../helpers/server";
import { waitFor } from "../helpers/storm-scenario";

const signIn = (server: TestServer, email: string, password: string, headers: Record<string, string> = {}) =>
  postSignIn(server.baseUrl, email, password, headers);

let forged = 0;
/** A new, made-up client address per request: what defeated the per-address limit. */
const forgedFor = () => ({ "x-forwarded-for": `203.0.113.${++forged % 250}` });

/**
 * Sign-in limits (issue #16, item 1): the per-address limit keys on the socket's peer unless a
 * trusted proxy vouches for X-Forwarded-For, and wrong passwords for one account back off.
 */
describe("sign-in limit per client address", () => {
  let db: TestDatabase;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await db?.drop();
  });

  it("a forged X-Forwarded-For on every attempt does not escape the limit, and the right password waits too", async () => {
    const server = await startServer(db.url, { ...OPERATOR_ENV, IDEMGATE_SIGN_IN_RATE_LIMIT: "5" });
    servers.push(server);
    const statuses: number[] = [];
    // A different email each time, so only the per-address limit can answer 429.
    for (let n = 0; n < 12; n++) statuses.push((await signIn(server, `nobody${n}@idemgate.test`, "wrong-password", forgedFor())).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true);
    const refused = await signIn(server, ROOT.email, ROOT.password, forgedFor());
    expect(refused.status).toBe(429);
    // The standard header (RFC 9110), which clients and proxies read; better-auth alone sends only X-Retry-After.
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it("behind a trusted proxy, the address it forwards is the client's", async () => {
    const server = await startServer(db.url, { ...OPERATOR_ENV, IDEMGATE_SIGN_IN_RATE_LIMIT: "3", IDEMGATE_TRUSTED_PROXIES: "loopback" });
    servers.push(server);
    // Three clients behind the proxy: each has its own allowance.
    for (const client of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) {
      const statuses: number[] = [];
      for (let n = 0; n < 4; n++) statuses.push((await signIn(server, `someone${n}@idemgate.test`, "wrong-password", { "x-forwarded-for": client })).status);
      expect(statuses, client).toEqual([401, 401, 401, 429]);
    }
  });
});

describe.each(PROVIDERS)("%s: sign-in backoff per account", (provider) => {
  let db: TestDatabase;
  let server: TestServer;
  beforeAll(async () => {
    db = await createTestDatabase(provider);
    server = await startServer(db.url, OPERATOR_ENV);
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("wrong passwords from many addresses lock the account briefly, even against the right password; then it signs in and the count resets", async () => {
    const statuses: number[] = [];
    // The README: four wrong passwords are answered as such; the fifth attempt is 429.
    for (let n = 0; n < 4; n++) statuses.push((await signIn(server, ROOT.email, `wrong-${n}`, forgedFor())).status);
    expect(statuses).toEqual([401, 401, 401, 401]);
    const refused = await signIn(server, ROOT.email.toUpperCase(), ROOT.password, forgedFor());
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(300);

    // Bounded: once the delay has passed, the owner gets in.
    const signedIn = await waitFor(async () => {
      const res = await signIn(server, ROOT.email, ROOT.password);
      return res.status === 429 ? null : res;
    }, 30_000, "the backoff to end");
    expect(signedIn.status).toBe(200);
    expect((await signIn(server, ROOT.email, "wrong-again")).status).toBe(401);
  });

  it("an email without an account backs off the same way, so the answer does not reveal which emails exist", async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 6; n++) statuses.push((await signIn(server, "ghost@idemgate.test", `wrong-${n}`, forgedFor())).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });
});
