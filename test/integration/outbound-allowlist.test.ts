import { beforeAll, describe, expect, it } from "vitest";
import { OutboundAllowlistEntrySchema, OutboundAllowlistSchema } from "../../lib/contract/outbound";
import { createOutbound } from "../../lib/server/outbound/outbound-context";
import { openStore } from "../../lib/store/hot/open-gate-store";
import { openDb } from "../../lib/store/prisma/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/** The outbound allowlist through the operator API of a real server, on both providers. */
describe.each(PROVIDERS)("%s: outbound allowlist", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let root: OperatorClient;
  let projectA: string;
  let projectB: string;
  let admin: OperatorClient;
  let operator: OperatorClient;
  const path = (projectId: string, rest = "") => `/api/v1/operator/projects/${projectId}/outbound-allowlist${rest}`;

  beforeAll(async () => {
    server = await sharedServer(provider);
    projectA = (await createTestProject(server.databaseUrl, "A")).projectId;
    projectB = (await createTestProject(server.databaseUrl, "B")).projectId;
    root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    admin = await createOperator(root, projectA, "admin");
    operator = await createOperator(root, projectA, "operator");
  });

  it("admins add and remove entries, each audited; the guard reads the change at once", async () => {
    const added = await admin.call(OutboundAllowlistEntrySchema, "POST", path(projectA), { pattern: " API.Stripe.com ", note: "payments" });
    expect(added).toMatchObject({ pattern: "api.stripe.com", note: "payments", createdBy: admin.email });
    await admin.call(OutboundAllowlistEntrySchema, "POST", path(projectA), { pattern: "127.0.0.1:4010" });
    const listed = await admin.call(OutboundAllowlistSchema, "GET", path(projectA));
    expect(listed.entries.map((e) => e.pattern)).toEqual(["127.0.0.1:4010", "api.stripe.com"]);

    // Another instance's guards, as the server builds them (the hot store's read) and through
    // Prisma: neither keeps the list, so the server's change is seen by the very next check.
    const prisma = openDb({ databaseUrl: server.databaseUrl });
    const store = openStore({ databaseUrl: server.databaseUrl });
    const guards = [createOutbound(prisma, store).guard, createOutbound(prisma).guard];
    try {
      for (const guard of guards) {
        await expect(guard.assertAllowed(projectA, "https://api.stripe.com/v1/charges")).resolves.toMatchObject({ host: "api.stripe.com" });
        await expect(guard.assertAllowed(projectB, "https://api.stripe.com/v1/charges")).rejects.toMatchObject({ reason: "not_allowlisted" });
      }
      await admin.call(OutboundAllowlistEntrySchema, "DELETE", path(projectA, `/${added.id}`));
      for (const guard of guards) {
        await expect(guard.assertAllowed(projectA, "https://api.stripe.com/v1/charges")).rejects.toMatchObject({ reason: "not_allowlisted" });
        await expect(guard.assertAllowed(projectA, "http://127.0.0.1:4010/")).resolves.toMatchObject({ host: "127.0.0.1" });
      }
    } finally {
      await store.close();
      await prisma.$disconnect();
    }

    const audit = (await admin.audit(projectA)).entries.filter((e) => e.action.startsWith("outbound_allowlist."));
    expect(audit.map((e) => [e.action, e.detail])).toEqual(
      expect.arrayContaining([
        ["outbound_allowlist.added", { pattern: "api.stripe.com", note: "payments" }],
        ["outbound_allowlist.removed", { pattern: "api.stripe.com" }],
      ]),
    );
    expect(audit.every((e) => e.actor.label === admin.email)).toBe(true);
  });

  it("bad patterns are a 400 with issues and store nothing; duplicates a 409; other projects' entries a 404", async () => {
    for (const pattern of ["*", "http://x.com", "*.com", "10.0.0.0/40"]) {
      const bad = await admin.expectError("POST", path(projectA), { pattern });
      expect(bad).toMatchObject({ status: 400, body: { error: { code: "invalid_input", issues: [{ path: ["pattern"] }] } } });
    }
    const entry = await admin.call(OutboundAllowlistEntrySchema, "POST", path(projectA), { pattern: "*.example.com" });
    expect(await admin.expectError("POST", path(projectA), { pattern: "*.EXAMPLE.com" })).toMatchObject({ status: 409, body: { error: { code: "already_exists" } } });
    expect(await root.expectError("DELETE", path(projectB, `/${entry.id}`))).toMatchObject({ status: 404 });
    const patterns = (await admin.call(OutboundAllowlistSchema, "GET", path(projectA))).entries.map((e) => e.pattern);
    expect(patterns).not.toContain("*");
    expect(patterns.filter((p) => p === "*.example.com")).toHaveLength(1);
  });

  it("operators below admin can neither read nor change it", async () => {
    expect(await operator.expectError("GET", path(projectA))).toMatchObject({ status: 403 });
    expect(await operator.expectError("POST", path(projectA), { pattern: "evil.example" })).toMatchObject({ status: 403 });
  });
});
