import { randomBytes } from "node:crypto";
import { type Page, expect, test } from "@playwright/test";
import { createTestProject } from "../helpers/fixtures";
import { type Agent, agentClient } from "./agent";
import { ADMIN, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";

test.describe.configure({ mode: "serial" });

/**
 * Issue #38's acceptance for the run page: a scripted run of three (sub)agents whose every answer
 * the test counts itself (a replay, a concurrent duplicate, a loop block before any record, a
 * failure, a call still running), then the run page's and the runs list's figures against that
 * tally: calls, tools, agents, events, each step's status, attempts and decisions, the outcomes
 * and the dedup hits of the run's begins.
 */
const tag = randomBytes(3).toString("hex");
const RUN = `run_fig_${tag}`;
const TOOLS = { plan: `plan_${tag}`, search: `search_${tag}`, charge: `charge_${tag}`, notify: `notify_${tag}` };
/** What the overview counts as a dedup hit (lib/dashboard/decision-groups.ts): the same word here. */
const DEDUP_HITS = new Set(["replay", "in_progress", "refused"]);

interface Step {
  agent: string;
  tool: string;
  stepId: string;
  callId: string | null;
  decisions: string[];
}
/** The test's tally, step by step in the order the agent made them, and the events it caused. */
const steps: Step[] = [];
let events = 0;
let PROJECT = "";
let BASE = "";
let API_KEY = "";
let page: Page;
let agent: Agent;

async function begin(agentId: string, tool: string, stepId: string, args: unknown) {
  const answer = await agent.begin({ tool, runId: RUN, stepId, agentId, args });
  events += 1;
  const callId = "callId" in answer && answer.callId ? String(answer.callId) : null;
  const step = steps.find((s) => s.tool === tool && s.stepId === stepId && s.callId !== null && s.callId === callId);
  if (step) step.decisions.push(answer.decision);
  else steps.push({ agent: agentId, tool, stepId, callId, decisions: [answer.decision] });
  return answer;
}

async function complete(callId: string, leaseToken: string, body: Record<string, unknown>) {
  const res = await fetch(`${BASE}/api/v1/calls/${callId}/complete`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ leaseToken, ...body }),
  });
  expect(res.status).toBe(200);
  events += 1;
}

test.beforeAll(async ({ browser, baseURL }) => {
  const project = await createTestProject(process.env.E2E_DATABASE_URL!, `run figures e2e ${tag}`);
  PROJECT = `/projects/${project.projectId}`;
  BASE = baseURL!;
  API_KEY = project.apiKey;
  agent = agentClient(baseURL!, project.apiKey);
  page = await signIn(browser, ADMIN);
  // The call left running keeps its lease for the whole test, however slow the machine.
  const put = await page.request.put(`/api/v1/admin/projects/${project.projectId}/policies/${TOOLS.notify}`, {
    data: { policy: { leaseSeconds: 3_600 }, reason: "run figures e2e: a call that stays running" },
    headers: { origin: baseURL! },
  });
  expect(put.status()).toBe(200);

  // The planner plans once, then asks again: a replay.
  const plan = await begin("planner", TOOLS.plan, "plan", { goal: "refund" });
  if (plan.decision !== "execute") throw new Error(`plan: ${plan.decision}`);
  await complete(plan.callId, plan.leaseToken, { outcome: "succeeded", result: { steps: 3 } });
  await begin("planner", TOOLS.plan, "plan", { goal: "refund" });
  // The researcher searches the same thing under new step ids: the third is a loop, blocked before it has a record.
  for (const stepId of ["s0", "s1", "s2"]) {
    const answer = await begin("researcher", TOOLS.search, stepId, { q: "refund policy" });
    if (answer.decision === "execute") await complete(answer.callId, answer.leaseToken, { outcome: "succeeded", result: { hits: 2 } });
  }
  // Billing charges; a duplicate arrives while it runs; the charge fails for good; asked again.
  const charge = await begin("billing", TOOLS.charge, "charge", { amount: 40 });
  if (charge.decision !== "execute") throw new Error(`charge: ${charge.decision}`);
  await begin("billing", TOOLS.charge, "charge", { amount: 40 });
  await complete(charge.callId, charge.leaseToken, { outcome: "failed", error: { message: "card declined", retryable: false } });
  await begin("billing", TOOLS.charge, "charge", { amount: 40 });
  // And a notification it has not finished.
  const notify = await begin("billing", TOOLS.notify, "notify", { to: "customer" });
  if (notify.decision !== "execute") throw new Error(`notify: ${notify.decision}`);
  // The script went as intended; what each answer was is the tally's, not these lines'.
  expect(steps.flatMap((s) => s.decisions).filter((d) => d === "blocked")).toHaveLength(1);
  expect(steps.find((s) => s.tool === TOOLS.plan)!.decisions).toEqual(["execute", "replay"]);
  expect(steps.find((s) => s.tool === TOOLS.charge)!.decisions.slice(0, 2)).toEqual(["execute", "in_progress"]);
});

test.afterAll(async () => {
  await page?.context().close();
});

const calls = () => steps.filter((s) => s.callId !== null);
const begins = () => steps.reduce((n, s) => n + s.decisions.length, 0);
const dedupHits = () => steps.reduce((n, s) => n + s.decisions.filter((d) => DEDUP_HITS.has(d)).length, 0);
const agents = () => new Set(steps.map((s) => s.agent)).size;
/** How the steps table words a step's decisions: each decision once, in first-seen order, with its count past one. */
function decisionsText(decisions: string[]): string {
  const counts = new Map<string, number>();
  for (const d of decisions) counts.set(d, (counts.get(d) ?? 0) + 1);
  return [...counts].map(([d, n]) => `${d.replace(/_/g, " ")}${n > 1 ? ` ×${n}` : ""}`).join("");
}

test("the run page: calls, agents and events equal the test's tally, and each step's attempts and decisions are what the agent was answered", async () => {
  await page.goto(`${PROJECT}/runs/${RUN}`);
  await expect(page.getByRole("heading", { name: new RegExp(`Run ${RUN}`) })).toBeVisible();
  await expect(page.getByText(new RegExp(`^${calls().length} calls · ${agents()} agents · ${events} events`))).toBeVisible();
  await expect(page.getByTestId("run-lane")).toHaveCount(agents());
  expect(await page.getByTestId("run-lane").evaluateAll((els) => els.map((el) => el.getAttribute("data-agent")))).toEqual(["planner", "researcher", "billing"]);

  const rows = page.getByTestId("run-steps").locator("tbody tr");
  await expect(rows).toHaveCount(steps.length);
  for (const step of steps) {
    const row = step.callId ? rows.filter({ has: page.locator(`a[href$="/calls/${step.callId}"]`) }) : rows.filter({ hasText: step.stepId }).filter({ hasText: "no record" });
    await expect(row, `${step.tool} ${step.stepId}`).toHaveCount(1);
    await expect(row.locator('td[data-label="Agent"]')).toHaveText(step.agent);
    // An attempt is an execution: the step's executes (a blocked step made none).
    await expect(row.locator('td[data-label="Attempts"]')).toHaveText(String(step.decisions.filter((d) => d === "execute").length));
    await expect(row.locator('td[data-label="Decisions"]')).toHaveText(decisionsText(step.decisions));
  }
  // Each step's state: the failed charge, the running notification, the searches and the plan done.
  const status = (tool: string, stepId: string) => rows.filter({ hasText: stepId }).filter({ hasText: tool }).locator('td[data-label="Status"]');
  await expect(status(TOOLS.charge, "charge")).toContainText("failed");
  await expect(status(TOOLS.notify, "notify")).toContainText(/executing|in progress|running/);
  await expect(status(TOOLS.plan, "plan")).toContainText("succeeded");
  await expectNoSeriousA11yViolations(page);
});

test("the runs list: the run's calls, tools, agents, outcomes and dedup hits equal the test's tally", async () => {
  await page.goto(`${PROJECT}/runs`);
  const row = page.getByTestId("run-row").filter({ hasText: RUN });
  await expect(row).toHaveCount(1);
  const tools = new Set(calls().map((s) => s.tool)).size;
  await expect(row.locator('td[data-label="Calls"]')).toHaveText(`${calls().length} (${tools} tools)`);
  await expect(row.locator('td[data-label="Agents"]')).toHaveText(String(agents()));
  await expect(row.locator('td[data-label="Dedup hits"]')).toHaveText(`${dedupHits()} of ${begins()} begins`);
  // Outcomes by the state each call ended in, and the begins the loop detector blocked.
  const succeeded = [TOOLS.plan, TOOLS.search].reduce((n, tool) => n + calls().filter((s) => s.tool === tool).length, 0);
  const blocked = steps.filter((s) => s.decisions.includes("blocked")).length;
  await expect(row.locator('td[data-label="Outcomes"]')).toHaveText(`${succeeded} succeeded1 failed1 running${blocked} blocked`);
  // No step registered an undo: no saga is shown.
  await expect(row.getByTestId("run-saga-state")).toHaveText("—");
});
