import { randomBytes } from "node:crypto";
import { type Page, expect, test } from "@playwright/test";
import { createTestProject } from "../helpers/fixtures";
import { type Agent, agentClient, runOnce } from "./agent";
import { ADMIN, SHOTS, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";

test.describe.configure({ mode: "serial" });

// A project of our own (the demo admin is admin of every project): other specs' traffic never
// changes what we count here, and ours never changes the demo project's figures they assert on.
let PROJECT = "";
const tag = randomBytes(3).toString("hex");
const TOOLS = { plan: `plan_${tag}`, search: `search_${tag}`, charge: `charge_${tag}` };
const RUN = `run_explore_${tag}`;
const OTHER_RUN = `run_other_${tag}`;

let page: Page;
let agent: Agent;
let chargeCallId = "";

test.beforeAll(async ({ browser, baseURL }) => {
  // There is no API that creates projects: write one into the e2e database, as the demo seed does.
  const project = await createTestProject(process.env.E2E_DATABASE_URL!, `calls explorer e2e ${tag}`);
  PROJECT = `/projects/${project.projectId}`;
  agent = agentClient(baseURL!, project.apiKey);
  // A parent plans, a "researcher" subagent searches three times, a "billing" subagent charges once,
  // and the parent, having lost the answer, asks about the charge again (replayed). Another run searches twice.
  expect((await runOnce(agent, { tool: TOOLS.plan, runId: RUN, stepId: "plan", args: { goal: "refund" } })).decision).toBe("execute");
  for (let i = 0; i < 3; i++) {
    const search = await runOnce(agent, { tool: TOOLS.search, runId: RUN, stepId: `search_${i}`, agentId: "researcher", args: { q: `q${i}` } });
    expect(search.decision).toBe("execute");
  }
  const charge = { tool: TOOLS.charge, runId: RUN, stepId: "charge", args: { order: "order:9", amount: 1999 } };
  chargeCallId = (await runOnce(agent, { ...charge, agentId: "billing" })).callId;
  expect((await agent.begin(charge)).decision).toBe("replay");
  for (let i = 0; i < 2; i++) await runOnce(agent, { tool: TOOLS.search, runId: OTHER_RUN, stepId: `search_${i}`, args: { q: `o${i}` } });

  page = await signIn(browser, ADMIN);
});

test.afterAll(async () => {
  await page?.context().close();
});

const rows = () => page.getByTestId("call-row");

test("calls: filter by tool (kept in the URL), page with Load more, then narrow to one run", async () => {
  await page.goto(`${PROJECT}/calls?limit=2`);
  await expect(page.getByRole("heading", { name: "Calls" })).toBeVisible();
  await expect(rows().first()).toBeVisible();

  await page.getByLabel("Tool", { exact: true }).fill(TOOLS.search);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]tool=${TOOLS.search}`));
  await expect(page).toHaveURL(/[?&]limit=2/);
  await expect(rows()).toHaveCount(2);
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(rows()).toHaveCount(4);
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(rows()).toHaveCount(5);
  await expect(page.getByText("End of the list.")).toBeVisible();
  const ids = await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-call-id")));
  expect(new Set(ids).size).toBe(5);
  for (const row of await rows().all()) await expect(row).toContainText(TOOLS.search);

  await page.getByLabel("Run", { exact: true }).fill(RUN);
  await page.getByLabel("Run", { exact: true }).press("Enter");
  await expect(page).toHaveURL(new RegExp(`[?&]runId=${RUN}`));
  await expect(rows()).toHaveCount(2);
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(rows()).toHaveCount(3);
  for (const row of await rows().all()) await expect(row).toContainText(RUN);

  // The filters survive a reload (they live in the URL), and a decision narrows further: nothing replayed here.
  await page.reload();
  await expect(page.getByLabel("Tool", { exact: true })).toHaveValue(TOOLS.search);
  await page.getByLabel("Decision").selectOption("replay");
  await expect(page.getByTestId("empty-state")).toContainText("No calls match these filters");
  await page.goBack();
  await expect(rows()).toHaveCount(2);
  await page.screenshot({ path: `${SHOTS}/calls.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);
});

test("calls: a row opens from the keyboard; the call shows its events as a timeline", async () => {
  await page.goto(`${PROJECT}/calls?tool=${TOOLS.charge}`);
  await expect(rows()).toHaveCount(1);
  await expect(rows().first()).toContainText("replay");
  await page.getByRole("link", { name: new RegExp(`Open call ${chargeCallId}`) }).focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/calls/${chargeCallId}$`));

  const timeline = page.getByTestId("call-timeline");
  await expect(timeline.getByTestId("ledger-event")).toHaveCount(3);
  await expect(timeline.getByTestId("ledger-event").nth(0)).toContainText("begin → execute");
  await expect(timeline.getByTestId("ledger-event").nth(0)).toContainText("First seen");
  await expect(timeline.getByTestId("ledger-event").nth(0)).toContainText("agent billing");
  await expect(timeline.getByTestId("ledger-event").nth(1)).toContainText("complete: succeeded");
  await expect(timeline.getByTestId("ledger-event").nth(2)).toContainText("begin → replay");
  await expect(timeline.getByTestId("ledger-event").nth(2)).toContainText("root agent");
  await expect(page.getByTestId("call-args")).toContainText('"order": "order:9"');
  await expect(page.getByRole("button", { name: "Evict" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Request resend" })).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/call-detail.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);
});

test("runs: the list shows the run with its counts, and its detail has a lane per (sub)agent", async () => {
  await page.goto(`${PROJECT}/runs`);
  const row = page.getByTestId("run-row").filter({ hasText: RUN });
  await expect(row).toBeVisible();
  await expect(row).toContainText("5 (3 tools)");
  await expect(row).toContainText("1 of 6 begins");
  await page.screenshot({ path: `${SHOTS}/runs.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);

  await row.getByRole("link", { name: RUN }).click();
  await expect(page.getByRole("heading", { name: new RegExp(`Run ${RUN}`) })).toBeVisible();
  const lanes = page.getByTestId("run-lane");
  await expect(lanes).toHaveCount(3);
  expect(await lanes.evaluateAll((els) => els.map((el) => el.getAttribute("data-agent")))).toEqual(["root agent", "researcher", "billing"]);
  // The parent's lane: its plan and its replayed ask about the subagent's charge.
  await expect(lanes.nth(0).getByTestId("run-segment")).toHaveCount(2);
  await expect(lanes.nth(1).getByTestId("run-segment")).toHaveCount(3);
  await expect(lanes.nth(2).getByTestId("run-segment")).toHaveCount(1);
  await expect(lanes.nth(2).locator(".rt-mark.fill-exec")).toHaveCount(1);
  await expect(lanes.nth(2).locator(".rt-mark.fill-ok")).toHaveCount(1);
  await expect(lanes.nth(0).locator(".rt-mark.fill-dedup")).toHaveCount(1);
  await expect(page.getByTestId("run-steps")).toContainText("replay");
  await page.screenshot({ path: `${SHOTS}/run-detail.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);

  await lanes.nth(2).getByRole("link").first().click();
  await expect(page).toHaveURL(new RegExp(`/calls/${chargeCallId}$`));
});

test("phone width: the calls list becomes cards and nothing overflows sideways", async () => {
  const phone = await page.context().newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  await phone.goto(`${PROJECT}/calls?runId=${RUN}`);
  await expect(phone.getByTestId("call-row")).toHaveCount(5);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await phone.goto(`${PROJECT}/runs/${RUN}`);
  await expect(phone.getByTestId("run-lane")).toHaveCount(3);
  expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
  await phone.screenshot({ path: `${SHOTS}/run-detail-phone.png`, fullPage: true });
  await phone.close();
});
