import { beforeAll, describe, expect, it } from "vitest";
import { PolicyChangeResponseSchema, PolicyListResponseSchema } from "../../lib/contract/admin-policies";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/**
 * The policy API (app/api/v1/admin/**) under the operator session: admins of the project may use
 * it from the browser, as themselves; lower roles, other projects and other sites may not. The
 * server here has no IDEMGATE_ADMIN_TOKEN, so the session is the only way in.
 */
describe.each(PROVIDERS)("%s: policies under the operator session", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let projectId: string;
  let admin: OperatorClient;
  let operator: OperatorClient;
  let outsider: OperatorClient;

  beforeAll(async () => {
    server = await sharedServer(provider);
    projectId = (await createTestProject(server.databaseUrl)).projectId;
    const other = (await createTestProject(server.databaseUrl, "other")).projectId;
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    admin = await createOperator(root, projectId, "admin");
    operator = await createOperator(root, projectId, "operator");
    outsider = await createOperator(root, other, "admin", "outsider");
  });

  const policyPath = (tool?: string) => `/api/v1/admin/projects/${projectId}/policies${tool ? `/${tool}` : ""}`;

  it("an admin of the project changes a policy as themselves (the body cannot name another author)", async () => {
    const tool = uniqueTool("session");
    const change = await admin.call(PolicyChangeResponseSchema, "PUT", policyPath(tool), { policy: { bypass: "never" }, reason: "no resends of refunds", author: "someone-else" });
    expect(change.revision.author).toBe(admin.email);
    expect((await admin.call(PolicyListResponseSchema, "GET", policyPath())).tools.map((t) => t.tool)).toContain(tool);
  });

  it("refuses lower roles (403), other projects (404), other sites (403) and anonymous callers (401)", async () => {
    const body = { policy: { ttlSeconds: 60 }, reason: "x" };
    expect(await operator.expectError("PUT", policyPath("t"), body)).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    expect((await outsider.expectError("PUT", policyPath("t"), body)).status).toBe(404);
    expect(await admin.expectError("PUT", policyPath("t"), body, { origin: "https://evil.example" })).toMatchObject({ status: 403, body: { error: { code: "csrf_rejected" } } });
    expect((await new OperatorClient(server.baseUrl, null).expectError("GET", policyPath())).status).toBe(401);
  });
});
