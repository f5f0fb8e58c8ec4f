import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditListSchema } from "../../lib/contract/operator";
import { UpstreamListSchema, UpstreamSchema } from "../../lib/contract/upstreams";
import { PROVIDERS } from "../helpers/databases";
import { allowOutbound } from "../helpers/mcp-clients";
import { createOperator } from "../helpers/operator-client";
import { sql } from "../helpers/sql";
import { type TwoProjects, startTwoProjects } from "../helpers/two-projects";

const SECRET = "sk_live_upstream-secret-never-shown-4242";

describe.each(PROVIDERS)("%s: the upstream registry", (provider) => {
  let world: TwoProjects;
  beforeAll(async () => {
    world = await startTwoProjects(provider, { IDEMGATE_STDIO_COMMANDS: JSON.stringify({ files: { command: "node", args: ["server.js"] } }) });
    // Upstream URLs must pass the project's outbound allowlist when they are saved.
    for (const pattern of ["*.example.com", "x.example", "other.example"]) await allowOutbound(world.root, world.projectA, pattern);
  });
  afterAll(async () => {
    await world?.stop();
  });
  const path = (rest = "") => world.root.p(world.projectA, `/upstreams${rest}`);

  it("creates MCP and HTTP upstreams whose secret is write-only: encrypted at rest, never returned, never audited", async () => {
    const created = await world.root.call(UpstreamSchema, "POST", path(), {
      kind: "mcp",
      transport: "streamable_http",
      name: "payments",
      url: "https://mcp.example.com/mcp",
      headers: { "x-tenant": "acme" },
      secret: SECRET,
    });
    expect(created).toMatchObject({ id: expect.stringMatching(/^up_/), name: "payments", kind: "mcp", hasSecret: true, version: 1, headers: { "x-tenant": "acme" } });
    const stdio = await world.root.call(UpstreamSchema, "POST", path(), { kind: "mcp", transport: "stdio", name: "files", command: "files" });
    expect(stdio).toMatchObject({ transport: "stdio", command: "files", args: [], url: null, hasSecret: false });
    await world.root.call(UpstreamSchema, "POST", path(), { kind: "http", name: "billing-api", url: "https://api.example.com" });

    const listRes = await world.root.raw("GET", path());
    const listText = await listRes.text();
    expect(listText).not.toContain(SECRET);
    expect(UpstreamListSchema.parse(JSON.parse(listText)).upstreams.map((u) => u.name)).toEqual(["billing-api", "files", "payments"]);

    const [row] = await sql<{ secret_enc: string }>(world.databaseUrl, "SELECT secret_enc FROM upstreams WHERE id = $1", [created.id]);
    expect(row!.secret_enc).toBeTruthy();
    expect(row!.secret_enc).not.toContain(SECRET);
    expect(Buffer.from(row!.secret_enc, "base64").toString("latin1")).not.toContain(SECRET);

    const audit = await world.root.call(AuditListSchema, "GET", world.root.p(world.projectA, "/audit?limit=500"));
    expect(JSON.stringify(audit)).not.toContain(SECRET);
    expect(audit.entries.filter((entry) => entry.action === "upstream.created")).toHaveLength(3);
  });

  it("bad input answers 400 with zod issues and stores nothing; a taken name answers 409", async () => {
    const before = (await world.root.call(UpstreamListSchema, "GET", path())).upstreams.length;
    for (const body of [
      { kind: "mcp", transport: "streamable_http", name: "Bad Name", url: "https://x.example" },
      { kind: "mcp", transport: "streamable_http", name: "ftp", url: "ftp://x.example" },
      { kind: "mcp", transport: "streamable_http", name: "leaky", url: "https://x.example", headers: { Authorization: "Bearer x" } },
      { kind: "mcp", transport: "stdio", name: "nocmd" },
      { kind: "http", name: "h", url: "https://x.example", extra: 1 },
    ]) {
      const refused = await world.root.expectError("POST", path(), body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.issues?.length).toBeGreaterThan(0);
    }
    expect((await world.root.call(UpstreamListSchema, "GET", path())).upstreams).toHaveLength(before);
    const taken = await world.root.expectError("POST", path(), { kind: "http", name: "payments", url: "https://other.example" });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("already_exists");
  });

  it("a URL the outbound allowlist refuses is refused when the upstream is created or moved, with a 400 on `url`, and nothing is stored", async () => {
    const before = (await world.root.call(UpstreamListSchema, "GET", path())).upstreams;
    for (const body of [
      { kind: "mcp", transport: "streamable_http", name: "internal", url: "http://10.0.0.5/mcp" },
      { kind: "http", name: "metadata", url: "http://169.254.169.254/latest" },
      { kind: "http", name: "elsewhere", url: "https://api.elsewhere.net" },
    ]) {
      const refused = await world.root.expectError("POST", path(), body);
      expect(refused.status, body.url).toBe(400);
      expect(refused.body.error.message).toMatch(/outbound allowlist/);
      expect(refused.body.error.issues?.map((issue) => issue.path)).toEqual([["url"]]);
    }
    // Another project's allowlist admits nothing here.
    expect((await world.root.expectError("POST", world.root.p(world.projectB, "/upstreams"), { kind: "http", name: "billing-api", url: "https://api.example.com" })).status).toBe(400);
    const payments = before.find((u) => u.name === "payments")!;
    const moved = await world.root.expectError("PATCH", path(`/${payments.id}`), { url: "http://10.0.0.5/mcp" });
    expect(moved.status).toBe(400);
    expect((await world.root.call(UpstreamListSchema, "GET", path())).upstreams).toEqual(before);
    const audit = await world.root.call(AuditListSchema, "GET", world.root.p(world.projectA, "/audit?limit=500"));
    expect(audit.entries.filter((entry) => entry.action === "upstream.created")).toHaveLength(3);
  });

  it("changes compare-and-set on the version; a secret is replaced or removed, never read back", async () => {
    const { upstreams } = await world.root.call(UpstreamListSchema, "GET", path());
    const payments = upstreams.find((u) => u.name === "payments")!;
    const moved = await world.root.call(UpstreamSchema, "PATCH", path(`/${payments.id}`), { url: "https://mcp2.example.com/mcp", expectedVersion: 1 });
    expect(moved).toMatchObject({ url: "https://mcp2.example.com/mcp", version: 2, hasSecret: true });
    const stale = await world.root.expectError("PATCH", path(`/${payments.id}`), { url: "https://x.example", expectedVersion: 1 });
    expect(stale.status).toBe(409);
    const cleared = await world.root.call(UpstreamSchema, "PATCH", path(`/${payments.id}`), { secret: null });
    expect(cleared).toMatchObject({ hasSecret: false, version: 3 });
    const [row] = await sql<{ secret_enc: string | null }>(world.databaseUrl, "SELECT secret_enc FROM upstreams WHERE id = $1", [payments.id]);
    expect(row!.secret_enc).toBeNull();
    const wrongField = await world.root.expectError("PATCH", path(`/${payments.id}`), { command: "sh" });
    expect(wrongField.status).toBe(400);
  });

  it("another project's admin and non-admins cannot see or touch them; delete is audited", async () => {
    const { upstreams } = await world.root.call(UpstreamListSchema, "GET", path());
    const target = upstreams.find((u) => u.name === "billing-api")!;
    const outsider = await createOperator(world.root, world.projectB, "admin", "up-outsider");
    expect((await outsider.expectError("GET", path(`/${target.id}`))).status).toBe(404);
    expect((await outsider.expectError("GET", outsider.p(world.projectB, `/upstreams/${target.id}`))).status).toBe(404);
    const operator = await createOperator(world.root, world.projectA, "operator", "up-operator");
    expect((await operator.expectError("GET", path())).status).toBe(403);

    expect((await world.root.call(UpstreamSchema, "DELETE", path(`/${target.id}`))).name).toBe("billing-api");
    expect((await world.root.expectError("GET", path(`/${target.id}`))).status).toBe(404);
    const audit = await world.root.call(AuditListSchema, "GET", world.root.p(world.projectA, "/audit?limit=500"));
    expect(audit.entries.map((entry) => entry.action)).toEqual(expect.arrayContaining(["upstream.updated", "upstream.deleted"]));
  });
});
