import { randomBytes } from "node:crypto";
import { type Page, expect, test } from "@playwright/test";
import { createTestProject } from "../helpers/fixtures";
import { type Agent, agentClient, runOnce } from "./agent";
import { ADMIN, SHOTS, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";

test.describe.configure({ mode: "serial" });

/**
 * Issue #17, loops and blocks visible: a researcher agent that alternates search_kb and fetch_page
 * with the same arguments is blocked on the third pair. The calls filter offers `blocked` and finds
 * the call; the run page and the call page show the cycle; the runs search finds the run.
 */
let PROJECT = "";
let PROJECT_ID = "";
const tag = randomBytes(3).toString("hex");
const SEARCH = `search_kb_${tag}`;
const FETCH = `fetch_page_${tag}`;
const LOOPING = `run_loop_${tag}`;
const CALM = `run_calm_${tag}`;
const CYCLE = `${SEARCH} → ${FETCH} ×3`;

let page: Page;
let agent: Agent;

test.beforeAll(async ({ browser, baseURL }) => {
  const project = await createTestProject(process.env.E2E_DATABASE_URL!, `loops e2e ${tag}`);
  PROJECT_ID = project.projectId;
  PROJECT = `/projects/${project.projectId}`;
  agent = agentClient(baseURL!, project.apiKey);
  const search = { tool: SEARCH, runId: LOOPING, agentId: "researcher", stepId: "search", args: { q: "refund policy" } };
  const fetch = { tool: FETCH, runId: LOOPING, agentId: "researcher", stepId: "fetch", args: { url: "https://kb/refunds" } };
  await runOnce(agent, search);
  await runOnce(agent, fetch);
  expect((await agent.begin(search)).decision).toBe("replay");
  expect((await agent.begin(fetch)).decision).toBe("replay");
  expect((await agent.begin(search)).decision).toBe("replay");
  expect(await agent.begin(fetch)).toMatchObject({ decision: "blocked", pattern: [SEARCH, FETCH], repeats: 3 });
  await runOnce(agent, { tool: SEARCH, runId: CALM, agentId: "writer", stepId: "search", args: { q: "shipping" } });
  page = await signIn(browser, ADMIN);
});

test.afterAll(async () => {
  await page?.context().close();
});

test("the calls filter offers blocked, and it finds the call the loop kept repeating", async () => {
  await page.goto(`${PROJECT}/calls`);
  await expect(page.getByTestId("call-row").first()).toBeVisible();
  const decision = page.getByLabel("Decision");
  await expect(decision.locator("option", { hasText: "blocked" })).toHaveCount(1);
  await decision.selectOption("blocked");
  await expect(page).toHaveURL(/[?&]decision=blocked/);
  await expect(page.getByTestId("call-row")).toHaveCount(1);
  await expect(page.getByTestId("call-row")).toContainText(FETCH);
  await expectNoSeriousA11yViolations(page);
  await page.screenshot({ path: `${SHOTS}/calls-blocked-filter.png`, fullPage: true });

  // The call page shows the cycle it was blocked for.
  await page.getByTestId("call-row").getByRole("link").first().click();
  await expect(page.getByTestId("loop-cycles")).toBeVisible();
  await expect(page.getByTestId("loop-cycle")).toContainText(CYCLE);
  await expectNoSeriousA11yViolations(page);
});

test("a blocked run shows its cycle, and the runs search finds it by state, agent, tool and id", async () => {
  await page.goto(`${PROJECT}/runs`);
  await expect(page.getByTestId("run-row")).toHaveCount(2);
  await page.getByLabel("State").selectOption("blocked");
  await expect(page).toHaveURL(/[?&]state=blocked/);
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(page.getByTestId("run-row")).toContainText(LOOPING);
  await expectNoSeriousA11yViolations(page);

  // The search lives in the URL: it survives a reload, and text fields narrow it further.
  await page.reload();
  await expect(page.getByLabel("State")).toHaveValue("blocked");
  await page.getByLabel("Agent").fill("writer");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/[?&]agentId=writer/);
  await expect(page.getByText("No runs match this search")).toBeVisible();
  await page.goto(`${PROJECT}/runs?tool=${FETCH}&runId=${LOOPING.slice(0, -2)}`);
  await expect(page.getByTestId("run-row")).toHaveCount(1);

  await page.getByTestId("run-row").getByRole("link", { name: LOOPING }).click();
  await expect(page.getByRole("heading", { name: /Run/ }).first()).toBeVisible();
  await expect(page.getByTestId("loop-cycle")).toHaveText(new RegExp(CYCLE.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  await expectNoSeriousA11yViolations(page);
  await page.screenshot({ path: `${SHOTS}/run-blocked-cycle.png`, fullPage: true });
});

test("a run stopped by its budget: an operator raises it on the run page (audited) and the run's next call executes", async ({ baseURL }) => {
  const tool = `issue_refund_${tag}`;
  const runId = `run_budget_${tag}`;
  const put = await page.request.put(`/api/v1/admin/projects/${PROJECT_ID}/policies/${tool}`, {
    data: { policy: { budget: { maxCallsPerRun: 1 } }, reason: "one refund per run" },
    headers: { origin: baseURL! },
  });
  expect(put.status()).toBe(200);
  await runOnce(agent, { tool, runId, stepId: "refund_1", args: { order: 1 } });
  const second = { tool, runId, stepId: "refund_2", args: { order: 2 } };
  expect(await agent.begin(second)).toMatchObject({ decision: "blocked", reason: "budget_exceeded" });

  await page.goto(`${PROJECT}/runs/${runId}`);
  const panel = page.getByTestId("run-budget");
  await expect(panel.getByTestId("run-budget-spend")).toContainText("Spent 1 call and 0.00 USD.");
  await panel.getByLabel("Max calls for this run").fill("2");
  await panel.getByRole("button", { name: "Raise budget" }).click();
  // A raise needs a reason for the audit log.
  await expect(panel.getByText("Give a reason for the audit log.")).toBeVisible();
  await panel.getByLabel("Reason").fill("the customer approved a second refund");
  await panel.getByRole("button", { name: "Raise budget" }).click();
  await expect(panel.getByRole("status")).toHaveText("Budget raised.");
  await expect(panel.getByTestId("run-budget-spend")).toContainText("Raised for this run to 2 calls.");
  await expectNoSeriousA11yViolations(page);
  await page.screenshot({ path: `${SHOTS}/run-budget-raised.png`, fullPage: true });

  expect((await agent.begin(second)).decision).toBe("execute");
  await page.goto(`${PROJECT}/audit`);
  await expect(page.getByText("run.budget_raised").first()).toBeVisible();
});

test("shadow mode on the overview: 'would have prevented N duplicate executions' per tool, linked to the calls behind it", async ({ baseURL }) => {
  const tool = `send_invoice_${tag}`;
  const put = await page.request.put(`/api/v1/admin/projects/${PROJECT_ID}/policies/${tool}`, {
    data: { policy: { mode: "shadow" }, reason: "watch before enforcing" },
    headers: { origin: baseURL! },
  });
  expect(put.status()).toBe(200);
  const request = { tool, runId: `run_shadow_${tag}`, stepId: "invoice", args: { order: 7 } };
  await runOnce(agent, request);
  // The model decides again: the gate answers execute (shadow) and records that it would have replayed.
  const again = await agent.begin(request);
  expect(again).toMatchObject({ decision: "execute", shadowDecision: "would_replay" });

  await page.goto(PROJECT);
  const panel = page.getByTestId("shadow-panel");
  const row = panel.getByTestId("shadow-tool").filter({ hasText: tool });
  await expect(row).toContainText("would have prevented 1 duplicate execution");
  await expectNoSeriousA11yViolations(page);
  await row.getByRole("link", { name: /would have prevented/ }).click();
  await expect(page).toHaveURL(/shadow=prevented/);
  await expect(page.getByTestId("call-row")).toHaveCount(1);
});
