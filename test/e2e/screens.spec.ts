import { randomBytes } from "node:crypto";
import { type Page, expect, test } from "@playwright/test";
import { agentClient, demoKey, runOnce } from "./agent";
import { ADMIN, signIn } from "./dashboard-helpers";
import { e2eServers } from "./servers";

/**
 * Screenshots for people, not assertions: the overview, a storm's detail and an approval card at a
 * laptop's and a phone's width (SCREENS_DIR, default test-results/screens). The journeys that assert
 * live in journeys.spec.ts. On a server of their own (playwright.config.ts starts it): the pictures
 * show the demo project and this spec's traffic, whichever specs ran before on the worker's server.
 */
const PROJECT_ID = "proj_demo";
const PROJECT = `/projects/${PROJECT_ID}`;
const DIR = process.env.SCREENS_DIR ?? "test-results/screens";
const suffix = randomBytes(3).toString("hex");
const STORM_TOOL = `shot_storm_${suffix}`;
const WIDTHS = [
  { name: "1440", width: 1440, height: 900 },
  { name: "390", width: 390, height: 844 },
];

test.describe.configure({ mode: "serial" });
const SERVER = e2eServers().screens;
test.use({ baseURL: SERVER.baseURL });

let page: Page;
let stormId = "";
let requestId = "";

test.beforeAll(async ({ browser, baseURL }) => {
  const agent = agentClient(baseURL!, demoKey(SERVER.dataDir));
  page = await signIn(browser, ADMIN);
  const put = await page.request.put(`/api/v1/admin/projects/${PROJECT_ID}/policies/${STORM_TOOL}`, {
    data: { policy: { storm: { windowSeconds: 1, minHits: 10, factor: 5 }, loop: { enabled: false } }, reason: "screens: fast storms" },
    headers: { origin: baseURL! },
  });
  expect(put.status()).toBe(200);
  const body = { tool: STORM_TOOL, runId: `shot_${suffix}`, stepId: "charge", args: { order: "order:9" } };
  await runOnce(agent, body);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  for (let i = 0; i < 9; i++, await sleep(500)) await agent.begin(body);
  await Promise.all(Array.from({ length: 40 }, () => agent.begin(body)));
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/api/v1/operator/projects/${PROJECT_ID}/storms`);
        stormId = ((await res.json()) as { storms: { id: string; tool: string }[] }).storms.find((s) => s.tool === STORM_TOOL)?.id ?? "";
        return stormId;
      },
      { timeout: 30_000 },
    )
    .not.toBe("");
  // A resend asked for under different args: the agent re-planned the amount.
  const invoice = { tool: `shot_invoice_${suffix}`, runId: `shot_run_${suffix}`, agentId: "billing-agent", stepId: "invoice", args: { order: "order:7", amount: 1999 } };
  await runOnce(agent, invoice);
  const asked = await agent.begin({ ...invoice, args: { order: "order:7", amount: 2099 }, bypass: { reason: "The customer changed the amount" } });
  expect(asked.decision).toBe("approval_required");
  requestId = "requestId" in asked ? String(asked.requestId) : "";
});

test.afterAll(async () => {
  await page?.context().close();
});

for (const size of WIDTHS) {
  test(`screenshots at ${size.name} px`, async () => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto(PROJECT);
    await expect(page.getByTestId("decisions-chart").locator(".recharts-bar-rectangle").first()).toBeVisible();
    await page.screenshot({ path: `${DIR}/overview-${size.name}.png`, fullPage: true });
    await page.goto(`${PROJECT}/storms/${stormId}`);
    await expect(page.getByTestId("storm-rate-chart").locator(".recharts-surface")).toBeVisible();
    await page.screenshot({ path: `${DIR}/storm-${size.name}.png`, fullPage: true });
    // The storm tool's own page (trends, cost, storms, policy) and the decisions behind a figure.
    await page.goto(`${PROJECT}/tools/${STORM_TOOL}`);
    await expect(page.getByTestId("tool-storms-chart").locator(".recharts-surface")).toBeVisible();
    await page.screenshot({ path: `${DIR}/tool-${size.name}.png`, fullPage: true });
    const window = { decidedFrom: new Date(Date.now() - 3_600_000).toISOString(), decidedTo: new Date(Date.now() + 60_000).toISOString() };
    await page.goto(`${PROJECT}/calls?${new URLSearchParams({ tool: STORM_TOOL, decision: "replay,in_progress,refused", ...window })}`);
    await expect(page.getByTestId("decisions-behind")).toBeVisible();
    await page.screenshot({ path: `${DIR}/decisions-behind-${size.name}.png`, fullPage: true });
    await page.goto(`${PROJECT}/approvals`);
    const card = page.locator(`[data-request-id="${requestId}"]`);
    await expect(card).toBeVisible();
    await page.waitForLoadState("networkidle");
    await card.screenshot({ path: `${DIR}/approval-card-${size.name}.png` });
    await page.screenshot({ path: `${DIR}/approvals-${size.name}.png`, fullPage: true });
  });
}
