import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Page, expect, test } from "@playwright/test";
import { type RunningUpstream, startUpstream } from "../helpers/mcp-upstream";
import { demoKey } from "./agent";
import { ADMIN, SHOTS, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";

const PROJECT = "/projects/proj_demo";
const NAME = `crm${Date.now().toString(36)}`;

test.describe.configure({ mode: "serial" });

let page: Page;
let upstream: RunningUpstream;
let client: Client;

type Result = { isError?: boolean; content: unknown; _meta?: Record<string, unknown> };

test.beforeAll(async ({ browser }) => {
  upstream = await startUpstream(path.join(mkdtempSync(path.join(os.tmpdir(), "idemgate-e2e-mcp-")), "effects.jsonl"));
  page = await signIn(browser, ADMIN);
});

test.afterAll(async () => {
  await client?.close();
  await upstream?.stop();
});

test("settings: an admin allows the upstream's address and adds it as an MCP upstream with a write-only secret", async ({ baseURL }) => {
  await page.goto(`${PROJECT}/settings`);
  const allowlist = page.getByTestId("outbound-allowlist-panel");
  // Count only once the list has loaded, and only the exact entry: other specs allow 127.0.0.1:<port>.
  await expect(allowlist.getByRole("table").or(allowlist.getByText("Nothing is allowed out"))).toBeVisible();
  const loopback = allowlist.getByTestId("outbound-entry-row").filter({ has: page.locator("code", { hasText: /^127\.0\.0\.1$/ }) });
  if ((await loopback.count()) === 0) {
    await allowlist.getByLabel("Host, IP or CIDR").fill("127.0.0.1");
    await allowlist.getByRole("button", { name: "Add" }).click();
    await expect(loopback).toBeVisible();
  }
  const panel = page.getByTestId("upstreams-panel");
  await panel.getByLabel("Name").fill(NAME);
  await panel.getByLabel("URL").fill(upstream.url);
  await panel.getByLabel("Secret (write-only)").fill("sk_e2e_never_shown");
  await panel.getByRole("button", { name: "Add" }).click();
  const row = panel.getByTestId("upstream-row").filter({ hasText: NAME });
  await expect(row).toContainText("MCP · Streamable HTTP");
  await expect(row).toContainText("set");
  await expect(page.locator("body")).not.toContainText("sk_e2e_never_shown");
  await page.screenshot({ path: `${SHOTS}/settings-upstreams.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);

  client = new Client({ name: "e2e-mcp-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseURL}/mcp/${NAME}`), { requestInit: { headers: { authorization: `Bearer ${demoKey()}` } } }));
  expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("delete_customer");
});

test("settings: an HTTP upstream with its own key header and replay limit", async () => {
  const panel = page.getByTestId("upstreams-panel");
  const name = `pay${Date.now().toString(36)}`;
  await panel.getByLabel("Kind").selectOption("http");
  await panel.getByLabel("Name").fill(name);
  await panel.getByLabel("URL").fill("http://127.0.0.1:9/");
  await panel.getByLabel("Key header").fill("X-Idem-Key");
  await panel.getByLabel("Replay limit (bytes)").fill("lots");
  await panel.getByRole("button", { name: "Add" }).click();
  await expect(panel.getByText("a whole number of bytes, at most 67108864 (64 MiB)")).toBeVisible();
  await panel.getByLabel("Replay limit (bytes)").fill("65536");
  await panel.getByRole("button", { name: "Add" }).click();
  const row = panel.getByTestId("upstream-row").filter({ hasText: name });
  await expect(row).toContainText("HTTP · key in x-idem-key · replays responses up to 64 KiB");
  await expectNoSeriousA11yViolations(page);
});

test("a destructive MCP tool's resend waits for approval; an operator approves it in the UI; the next call runs once", async ({ baseURL }) => {
  // One deletion per customer, whichever run asks: each call below is its own run, as separate chats would be.
  const policy = await page.request.put(`/api/v1/admin/projects/proj_demo/policies/${NAME}__delete_customer`, {
    headers: { origin: baseURL! },
    data: { policy: { keyStrategy: "scope", scopeFrom: ["/customerId"], bypass: "approval" }, reason: "one deletion per customer" },
  });
  expect(policy.status()).toBe(200);
  let run = 0;
  const call = (resend?: string) =>
    client.callTool({ name: "delete_customer", arguments: { customerId: "e2e-1" }, _meta: { "idemgate/runId": `e2e-del-${run++}`, ...(resend ? { "idemgate/resend": resend } : {}) } }) as Promise<Result>;
  expect((await call())._meta?.["idemgate/decision"]).toBe("execute");
  const asked = await call("the customer asked again");
  expect(asked._meta?.["idemgate/decision"]).toBe("approval_required");
  const requestId = asked._meta?.["idemgate/requestId"] as string;
  const deletions = () => upstream.effects().filter((effect) => effect.tool === "delete_customer").length;
  expect(deletions()).toBe(1);

  await page.goto(`${PROJECT}/approvals`);
  const card = page.locator(`[data-request-id="${requestId}"]`);
  await expect(card).toBeVisible();
  await card.getByLabel(/Note/).fill("Confirmed with the customer by phone");
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.locator(`[data-request-id="${requestId}"] .badge.approved`)).toBeVisible();

  const resent = await call("the customer asked again");
  expect(resent.isError ?? false).toBe(false);
  expect(resent._meta?.["idemgate/decision"]).toBe("execute");
  expect(deletions()).toBe(2);
  expect((await call())._meta?.["idemgate/decision"]).toBe("replay");
  expect(deletions()).toBe(2);
});

test("the tools page shows each MCP tool's annotations beside its policy", async () => {
  await page.goto(`${PROJECT}/tools`);
  const row = (tool: string) => page.getByTestId("tool-row").filter({ has: page.getByRole("link", { name: `${NAME}__${tool}`, exact: true }) });
  await expect(row("delete_customer").getByTestId("tool-hints")).toHaveText("destructive");
  await expect(row("get_order").getByTestId("tool-hints")).toHaveText("read-only");
  await expect(row("delete_customer")).toContainText("own, v");
  await expectNoSeriousA11yViolations(page);
});
