import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemberSchema } from "../../lib/contract/operator";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OPERATOR_ENV, OperatorClient, ROOT, createOperator, postSignIn } from "../helpers/operator-client";
import { type TestServer, startServer } from "../helpers/server";
import { waitFor } from "../helpers/storm-scenario";

const me = (client: OperatorClient) => client.raw("GET", "/api/v1/operator/me");

const signInRaw = (server: TestServer, email: string, password: string, headers: Record<string, string> = {}) =>
  postSignIn(server.baseUrl, email, password, headers);

const cookieOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ");

/** Session hygiene (issue #16, item 5), over real HTTP against real servers. */
describe.each(PROVIDERS)("%s: session hygiene", (provider) => {
  let db: TestDatabase;
  let server: TestServer;
  let root: OperatorClient;
  beforeAll(async () => {
    db = await createTestDatabase(provider);
    server = await startServer(db.url, { ...OPERATOR_ENV, IDEMGATE_TRUSTED_PROXIES: "loopback" });
    root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("a password change ends the user's other sessions, even when the client does not ask for it", async () => {
    const project = await createTestProject(db.url);
    const email = `changer-${randomBytes(3).toString("hex")}@idemgate.test`;
    await root.addMember(project.projectId, { email, role: "viewer", password: "old-password-1", name: "changer" });
    const laptop = await OperatorClient.signIn(server.baseUrl, email, "old-password-1");
    const stolen = await OperatorClient.signIn(server.baseUrl, email, "old-password-1");
    expect((await me(stolen)).status).toBe(200);

    const changed = await laptop.raw("POST", "/api/auth/change-password", { currentPassword: "old-password-1", newPassword: "new-password-2" });
    expect(changed.status).toBe(200);
    expect((await me(stolen)).status).toBe(401);
    // The session that changed it continues under the cookie it was given.
    expect((await me(new OperatorClient(server.baseUrl, cookieOf(changed), email))).status).toBe(200);
  });

  it("cookies are Secure when the request came over https through a trusted proxy", async () => {
    const viaHttps = await signInRaw(server, ROOT.email, ROOT.password, { "x-forwarded-proto": "https" });
    expect(viaHttps.status).toBe(200);
    const cookies = viaHttps.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/;\s*Secure/i);
    const plain = await signInRaw(server, ROOT.email, ROOT.password);
    for (const cookie of plain.headers.getSetCookie()) expect(cookie).not.toMatch(/;\s*Secure/i);
  });

  it("the dashboard answers with CSP (no framing), nosniff and a referrer policy", async () => {
    for (const path of ["/sign-in", "/api/v1/openapi.json"]) {
      const res = await fetch(`${server.baseUrl}${path}`);
      expect(res.headers.get("content-security-policy"), path).toMatch(/frame-ancestors 'none'/);
      expect(res.headers.get("content-security-policy"), path).toMatch(/default-src 'self'/);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("referrer-policy"), path).toBe("same-origin");
    }
  });

  it("a project admin cannot tell whether an email has an account in another project", async () => {
    const [mine, theirs] = await Promise.all([createTestProject(db.url, "mine"), createTestProject(db.url, "theirs")]);
    const admin = await createOperator(root, mine.projectId, "admin", "project-admin");
    const outsider = `outsider-${randomBytes(3).toString("hex")}@idemgate.test`;
    await root.addMember(theirs.projectId, { email: outsider, role: "viewer", password: "outsider-pass-1", name: "Outsider" });
    const nobody = `nobody-${randomBytes(3).toString("hex")}@idemgate.test`;

    const answer = async (email: string, extra: Record<string, string> = {}) => {
      const res = await admin.raw("POST", admin.p(mine.projectId, "/members"), { email, role: "viewer", ...extra });
      const body = (await res.json()) as { error?: { code: string; message: string } };
      return { status: res.status, code: body.error?.code, message: body.error?.message?.replace(email, "<email>") };
    };
    expect(await answer(outsider)).toEqual(await answer(nobody));
    // Given a password, both are added alike, answered alike (the name given, never the account's
    // own "Outsider"); the existing account keeps its own password.
    const added = async (email: string) => {
      const res = await admin.raw("POST", admin.p(mine.projectId, "/members"), { email, role: "viewer", password: "chosen-by-admin-1", name: "Chosen Name" });
      const body = MemberSchema.parse(await res.json());
      return { status: res.status, ...body, userId: typeof body.userId, email: body.email.replace(email, "<email>"), createdAt: typeof body.createdAt };
    };
    const existing = await added(outsider);
    expect(existing).toEqual(await added(nobody));
    expect(existing).toMatchObject({ status: 200, name: "Chosen Name", email: "<email>", role: "viewer" });
    expect((await signInRaw(server, outsider, "chosen-by-admin-1")).status).toBe(401);
    expect((await signInRaw(server, outsider, "outsider-pass-1")).status).toBe(200);
    const log = (await admin.audit(mine.projectId)).entries.map((entry) => entry.action);
    expect(log).not.toContain("user.created");
  });
});

describe("absolute session lifetime", () => {
  let db: TestDatabase;
  let server: TestServer;
  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    server = await startServer(db.url, { ...OPERATOR_ENV, IDEMGATE_SESSION_MAX_HOURS: "0.001" });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("a session in constant use still ends the configured time after sign-in", async () => {
    const session = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    expect((await me(session)).status).toBe(200);
    // 3.6 s after sign-in, however often it is used meanwhile.
    const ended = await waitFor(async () => (await me(session)).status === 401, 30_000, "the session to end");
    expect(ended).toBe(true);
    expect((await me(await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password))).status).toBe(200);
  });
});
