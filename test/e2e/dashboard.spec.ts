import { type Page, expect, test } from "@playwright/test";
import { type Agent, agentClient, demoKey, runOnce } from "./agent";
import { ADMIN, SHOTS, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";

const PROJECT = "/projects/proj_demo";

test.describe.configure({ mode: "serial" });

let page: Page;
let agent: Agent;
/** A completed call of `send_invoice` the agent will ask to resend. */
let resendCall: { callId: string; body: Record<string, unknown> };
let emailCallId = "";

test.beforeAll(async ({ browser, baseURL }) => {
  agent = agentClient(baseURL!, demoKey());
  // Traffic: 6 runs execute send_email once and replay it once (a re-planning model that paraphrased
  // a volatile field); a read tool runs too. (A third identical call would trip the loop detector.)
  for (let run = 0; run < 6; run++) {
    const body = { tool: "send_email", runId: `run_${run}`, stepId: "notify", args: { to: `u${run}@example.com` } };
    const first = await runOnce(agent, body);
    expect(first.decision).toBe("execute");
    emailCallId = first.callId;
    expect((await runOnce(agent, { ...body, args: { ...body.args, requestId: "x" } })).decision).toBe("replay");
    await runOnce(agent, { tool: "lookup_customer", runId: `run_${run}`, stepId: "lookup", args: { id: run } });
  }
  const body = { tool: "send_invoice", runId: "run_invoice", stepId: "invoice", args: { order: "order:42", amount: 1999 } };
  resendCall = { callId: (await runOnce(agent, body)).callId, body };

  page = await signIn(browser, ADMIN);
});

test.afterAll(async () => {
  await page?.context().close();
});

test("overview: KPIs and a stacked chart of executions vs dedup hits", async () => {
  await page.goto("/dashboard");
  await expect(page).toHaveURL(new RegExp(`${PROJECT}$`));
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(page.getByTestId("kpi-calls").locator(".value")).toHaveText(/^\d/);
  await expect(page.getByTestId("kpi-dedup-hits").locator(".value")).toHaveText("6");
  // Both stacks drew bars (recharts marks), not an empty state.
  const chart = page.getByTestId("decisions-chart");
  await expect(chart.locator(".recharts-bar-rectangle path").first()).toBeVisible();
  expect(await chart.locator(".recharts-bar").count()).toBeGreaterThanOrEqual(2);
  for (const bar of await chart.locator(".recharts-bar").all()) expect(await bar.locator(".recharts-bar-rectangle path").count()).toBeGreaterThan(0);
  await page.screenshot({ path: `${SHOTS}/overview.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);
});

test("approvals: an agent's resend request is approved in the UI and its token executes once", async () => {
  const asked = await agent.askResend(resendCall.callId, "The invoice email bounced; send it again");
  expect(asked.status).toBe("pending");

  await page.goto(`${PROJECT}/approvals`);
  const card = page.locator(`[data-request-id="${asked.requestId}"]`);
  await expect(card).toBeVisible();
  await expect(card.getByTestId("resend-args")).toContainText('"order": "order:42"');
  await page.screenshot({ path: `${SHOTS}/approvals.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);

  // A note is required.
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(card.getByText("Write a note for the audit log.")).toBeVisible();
  await card.getByLabel(/Note/).fill("Customer confirmed the bounce");
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.locator(`[data-request-id="${asked.requestId}"] .badge.approved`)).toBeVisible();

  // The inbox keeps it, decided, with who and why.
  await expect(card).toContainText("Customer confirmed the bounce");
  await expect(card).toContainText(/admin/i);

  const approved = await agent.resendRequest(asked.requestId);
  expect(approved.status).toBe("approved");
  expect(approved.bypassToken).toBeTruthy();
  const again = await agent.begin({ ...resendCall.body, bypassToken: approved.bypassToken });
  expect(again.decision).toBe("execute");

  // The audit log shows who approved it, and that the agent's token was then used.
  await page.goto(`${PROJECT}/audit`);
  const approval = page.locator('[data-testid="audit-row"][data-action="resend.approved"]').filter({ hasText: asked.requestId });
  await expect(approval).toBeVisible();
  await expect(approval).toContainText(/admin/i);
  await expect(approval).toContainText("Customer confirmed the bounce");
  await expect(page.locator('[data-testid="audit-row"][data-action="resend.token_used"]').filter({ hasText: asked.requestId })).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/audit.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);
  // The request's entry names the call it would re-run, and leads to it.
  const requested = page.locator('[data-testid="audit-row"][data-action="resend.requested"]').filter({ hasText: asked.requestId });
  await requested.getByRole("link", { name: resendCall.callId }).click();
  await expect(page).toHaveURL(new RegExp(`/calls/${resendCall.callId}$`));
});

test("tools & policies: list with traffic, edit a policy with inline validation, see history", async () => {
  await page.goto(`${PROJECT}/tools`);
  await expect(page.getByTestId("tool-row").filter({ hasText: "send_email" })).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/tools.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);

  await page.getByRole("link", { name: "send_email" }).click();
  await expect(page.getByRole("heading", { name: /Policy/ })).toBeVisible();
  await expect(page.getByText("inherited from builtin").first()).toBeVisible();
  const ttl = page.getByLabel("Keep outcomes for (seconds)");
  await ttl.fill("0");
  await expect(page.locator("#field-ttlSeconds-error")).toBeVisible();
  await ttl.fill("3600");
  await page.getByLabel("On a duplicate").selectOption("refuse");
  // Before saving, the simulator replays the tool's latest calls through the draft: the six paraphrased
  // duplicates that were replays would now be refused, and the chart draws both sides.
  const simulation = page.getByTestId("policy-simulation");
  const refusedRow = simulation.locator('[data-testid="simulation-row"][data-decision="refused"]');
  await expect
    .poll(async () => ((await refusedRow.count()) ? Number(await refusedRow.getAttribute("data-draft")) - Number(await refusedRow.getAttribute("data-actual")) : null))
    .toBeGreaterThanOrEqual(6);
  await expect(simulation).toContainText("Saving changes how these calls are decided.");
  expect(await simulation.locator(".recharts-bar").count()).toBe(2);
  await expect(simulation.locator(".recharts-bar-rectangle path").first()).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/policy-simulation.png`, fullPage: true });
  await page.getByRole("button", { name: "Save policy" }).click();
  await expect(page.locator("#policy-reason-error")).toBeVisible();
  await page.getByLabel("Reason for the change").fill("Invoices are resent within the hour");
  await page.getByRole("button", { name: "Save policy" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Saved as revision/ })).toBeVisible();
  await expect(page.getByTestId("policy-history")).toContainText("Invoices are resent within the hour");
  // The very next agent call obeys the edit: a duplicate of a completed send_email is refused, not replayed
  // (paraphrased args, so the run does not look like a loop).
  const duplicate = await agent.begin({ tool: "send_email", runId: "run_1", stepId: "notify", args: { to: "U1@example.com" } });
  expect(duplicate.decision).toBe("refused");
  await page.screenshot({ path: `${SHOTS}/policy.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);
});

test("call detail and storms pages render with their states", async () => {
  await page.goto(`${PROJECT}/calls/${resendCall.callId}`);
  await expect(page.getByTestId("call-timeline")).toContainText("First seen");
  await expect(page.getByRole("button", { name: "Evict" })).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/call.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);

  await page.goto(`${PROJECT}/storms`);
  await expect(page.getByRole("heading", { name: "Retry storms" })).toBeVisible();
  await expect(page.getByTestId("empty-state").or(page.getByTestId("storm-row").first())).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/storms.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);
});

test("a retry storm opens: the overview shows its banner and the storms page lists it", async ({ baseURL }) => {
  // One-second windows and a low bar (the e2e server runs the detector every 500 ms).
  const policy = { policy: { storm: { windowSeconds: 1, minHits: 10, factor: 5 }, loop: { enabled: false } }, reason: "e2e: fast storms" };
  const put = await page.request.put(`/api/v1/admin/projects/proj_demo/policies/flaky_charge`, { data: policy, headers: { origin: baseURL! } });
  expect(put.status()).toBe(200);
  const body = { tool: "flaky_charge", runId: "run_storm", stepId: "charge", args: { order: "order:7" } };
  expect((await runOnce(agent, body)).decision).toBe("execute");
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  // A quiet baseline (~2 hits a second for a few windows), then a burst, then a high rate until the UI saw it.
  for (let i = 0; i < 9; i++, await sleep(500)) await agent.begin(body);
  await Promise.all(Array.from({ length: 40 }, () => agent.begin(body)));
  let storming = true;
  const storm = (async () => {
    while (storming) await Promise.all([agent.begin(body), agent.begin(body), sleep(50)]);
  })();
  try {
    await page.goto(`${PROJECT}/storms`);
    const row = page.getByTestId("storm-row").filter({ hasText: "flaky_charge" });
    await expect(async () => {
      await page.reload();
      await expect(row).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
    await page.screenshot({ path: `${SHOTS}/storms-open.png`, fullPage: true });
    await page.goto(PROJECT);
    await expect(page.getByTestId("storm-banner")).toContainText("flaky_charge");
    await expect(page.getByTestId("kpi-storms").locator(".value")).not.toHaveText("0");
    await page.screenshot({ path: `${SHOTS}/overview-storm.png`, fullPage: true });
    await expectNoSeriousA11yViolations(page);
  } finally {
    storming = false;
    await storm;
  }
});

test("keyboard: skip link and nav are reachable with Tab", async () => {
  await page.goto(PROJECT);
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Approvals" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Approvals" })).toBeVisible();
});

test("phone width: the overview stays readable", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(PROJECT);
  await expect(page.getByTestId("decisions-chart").locator(".recharts-bar-rectangle path").first()).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await page.screenshot({ path: `${SHOTS}/overview-phone.png`, fullPage: true });
});

test("a viewer sees requests and calls but no approve, evict or edit controls", async ({ browser, baseURL }) => {
  const viewer = { email: "viewer@idemgate.local", password: "viewer-password-1", name: "Viewer", role: "viewer" };
  const added = await page.request.post(`/api/v1/operator/projects/proj_demo/members`, { data: viewer, headers: { origin: baseURL! } });
  expect(added.status()).toBeLessThan(300);
  const pending = await agent.askResend(emailCallId, "Viewer test: still pending");

  const p = await signIn(browser, viewer);

  await p.goto(`${PROJECT}/approvals`);
  await expect(p.locator(`[data-request-id="${pending.requestId}"]`)).toBeVisible();
  await expect(p.getByRole("button", { name: /Approve|Deny/ })).toHaveCount(0);
  await expect(p.getByRole("link", { name: "Tools & policies" })).toHaveCount(0);
  await expectNoSeriousA11yViolations(p);

  await p.goto(`${PROJECT}/calls/${emailCallId}`);
  await expect(p.getByTestId("call-timeline")).toBeVisible();
  await expect(p.getByRole("button", { name: "Evict" })).toHaveCount(0);

  await p.goto(`${PROJECT}/tools/send_email`);
  await expect(p.getByText("Policies need the admin role")).toBeVisible();
  await expect(p.getByRole("button", { name: "Save policy" })).toHaveCount(0);
  await p.goto(PROJECT);
  // Statistics are readable by every member (the operator API): the viewer sees the same charts.
  await expect(p.getByTestId("decisions-chart").locator(".recharts-bar-rectangle path").first()).toBeVisible();
  await p.screenshot({ path: `${SHOTS}/overview-viewer.png`, fullPage: true });
  await p.context().close();
});
