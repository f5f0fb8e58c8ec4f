import { randomBytes } from "node:crypto";
import { type Page, expect, test } from "@playwright/test";
import { type Agent, agentClient, demoKey, runOnce } from "./agent";
import { ADMIN, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";

/** Issue #17's operator journeys, sections 3, 5 and 6: each step asserts what the operator must see. */
const PROJECT_ID = "proj_demo";
const PROJECT = `/projects/${PROJECT_ID}`;
const suffix = randomBytes(3).toString("hex");
const TOOLS = { main: `jr_main_${suffix}`, loop: `jr_loop_${suffix}` };

test.describe.configure({ mode: "serial" });

let page: Page;
let agent: Agent;
/** Calls of the main tool that were replayed (a dedup hit each), oldest first; and one that only executed, after them. */
const replayed: string[] = [];
let executedOnly = "";

const int = (text: string | null) => Number((text ?? "").replace(/[^\d]/g, ""));

test.beforeAll(async ({ browser, baseURL }) => {
  agent = agentClient(baseURL!, demoKey());
  page = await signIn(browser, ADMIN);
  const put = await page.request.put(`/api/v1/admin/projects/${PROJECT_ID}/policies/${TOOLS.main}`, {
    data: { policy: { loop: { enabled: false } }, reason: "journeys: replays without loop blocks" },
    headers: { origin: baseURL! },
  });
  expect(put.status()).toBe(200);
  // The loop detector blocks the third identical call of a run: a decision with no record behind it.
  const loop = { tool: TOOLS.loop, runId: `jr_loop_${suffix}`, stepId: "search", args: { q: "same" } };
  await runOnce(agent, loop);
  await agent.begin(loop);
  expect((await agent.begin(loop)).decision).toBe("blocked");
  // Then the dedup hits: the last replayed call is in the chart's last dedup-hits bar, whatever minute boundary falls before it.
  for (let run = 0; run < 5; run++) {
    const body = { tool: TOOLS.main, runId: `jr_${suffix}_${run}`, stepId: "charge", args: { order: run } };
    const first = await runOnce(agent, body);
    expect(first.decision).toBe("execute");
    for (let i = 0; i < 2; i++) expect((await agent.begin(body)).decision).toBe("replay");
    replayed.push(first.callId);
  }
  // A resend asked by begin: approval_required.
  const asked = await agent.begin({ tool: TOOLS.main, runId: `jr_${suffix}_0`, stepId: "charge", args: { order: 0 }, bypass: { reason: "journeys" } });
  expect(asked.decision).toBe("approval_required");
  executedOnly = (await runOnce(agent, { tool: TOOLS.main, runId: `jr_${suffix}_x`, stepId: "charge", args: { order: "x" } })).callId;
});

test.afterAll(async () => {
  await page?.context().close();
});

test("overview: the decision tiles add up to the calls, blocked and approval required included, and so does the chart", async () => {
  await page.goto(PROJECT);
  const value = (id: string) => page.getByTestId(`kpi-${id}`).locator(".value");
  // Loaded (a dash while loading), and this spec's blocked and approval_required are counted.
  await expect(value("blocked")).toHaveText(/^[1-9][\d,]*$/);
  await expect(value("approval-required")).toHaveText(/^[1-9][\d,]*$/);
  const calls = int(await value("calls").textContent());
  const groups = ["executions", "dedup-hits", "conflicts", "approval-required", "blocked"];
  let sum = 0;
  for (const id of groups) sum += int(await value(id).textContent());
  if (await page.getByTestId("kpi-other").count()) sum += int(await value("other").textContent());
  expect(calls).toBeGreaterThan(0);
  expect(sum).toBe(calls);
  // The chart's numbers: every bucket's calls, summed over the range, are the calls too.
  await page.getByText(/The numbers behind the chart/).click();
  const totals = await page.getByTestId("decisions-row").locator('td[data-group="total"]').allTextContents();
  expect(totals.reduce((s, t) => s + int(t), 0)).toBe(calls);
  // Axes have titles with units.
  const chart = page.getByTestId("decisions-chart");
  await expect(chart).toContainText("Calls per minute");
  // The last hour spans two UTC dates from midnight to one o'clock: then the ticks carry the date
  // ("11-27 23:19") and so does the title. Either way the title names the time zone.
  const tickLabels = chart.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value");
  await expect(tickLabels.first()).toBeVisible();
  const ticks = await tickLabels.allTextContents();
  const dated = ticks.every((t) => /^\d\d-\d\d \d\d:\d\d$/.test(t.trim()));
  expect(dated || ticks.every((t) => /^\d\d:\d\d$/.test(t.trim()))).toBe(true);
  await expect(chart.locator(".recharts-label", { hasText: "(UTC)" })).toHaveText(dated ? "Date and time (UTC)" : "Time (UTC)");
  await expect(page.getByTestId("dedup-rate-chart")).toContainText("Dedup rate (% of calls)");
  await expectNoSeriousA11yViolations(page);
});

test("overview: clicking a dedup-hits bar opens the calls behind it, filtered by its window and decisions", async () => {
  await page.goto(PROJECT);
  const bar = page.getByTestId("decisions-chart").locator(".bar-dedupHits .recharts-bar-rectangle").last();
  await bar.click();
  await expect(page).toHaveURL(/\/calls\?decision=replay%2Cin_progress%2Crefused&decidedFrom=[^&]+&decidedTo=[^&]+$/);
  const url = new URL(page.url());
  const window = Date.parse(url.searchParams.get("decidedTo")!) - Date.parse(url.searchParams.get("decidedFrom")!);
  expect(window).toBe(60_000);
  await expect(page.getByTestId("decided-window")).toContainText("replay, in progress, refused");
  const rows = page.getByTestId("call-row");
  await expect(rows.first()).toBeVisible();
  await expect(page.locator(`[data-call-id="${replayed[replayed.length - 1]}"]`)).toBeVisible();
  // A call that only executed in that minute is not a dedup hit.
  await expect(page.locator(`[data-call-id="${executedOnly}"]`)).toHaveCount(0);
  // Every listed call's ledger holds a dedup hit (the list's latest decision is one, or it was replayed).
  for (const row of await rows.all()) await expect(row).toContainText(/replay|in progress|refused|replays/);
});

test("overview: a preset and a custom range live in the URL and survive a reload", async () => {
  await page.goto(PROJECT);
  await page.getByRole("combobox", { name: "Range", exact: true }).selectOption("24h");
  await expect(page).toHaveURL(/\?range=24h$/);
  await page.reload();
  await expect(page.getByRole("combobox", { name: "Range", exact: true })).toHaveValue("24h");
  await expect(page.getByTestId("refreshed")).toContainText("Last 24 h");
  await expect(page.getByTestId("refreshed")).toContainText(/last refreshed \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);

  // Whole hours: a two-day range is drawn in hour buckets, and the label shows the range as drawn.
  const to = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
  const from = new Date(to.getTime() - 2 * 86_400_000);
  const input = (d: Date) => d.toISOString().slice(0, 16);
  await page.getByRole("combobox", { name: "Range", exact: true }).selectOption("custom");
  await page.getByLabel("From (UTC)").fill(input(from));
  await page.getByLabel("To (UTC)").fill(input(to));
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(new RegExp(`\\?from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}$`));
  await page.reload();
  await expect(page.getByRole("combobox", { name: "Range", exact: true })).toHaveValue("custom");
  await expect(page.getByLabel("From (UTC)")).toHaveValue(input(from));
  await expect(page.getByTestId("refreshed")).toContainText(`${input(from).replace("T", " ")} – ${input(to).replace("T", " ")} UTC`);
  // Two days: hour bars, and the x axis carries the date.
  await expect(page.getByTestId("decisions-chart")).toContainText("Calls per hour");
  await expect(page.getByTestId("decisions-chart")).toContainText("Date and time (UTC)");
});

test("approvals: the card names the API key, shows the run and agent, the original outcome and the args diff of a resend under other args", async () => {
  const keys = (await (await page.request.get(`/api/v1/operator/projects/${PROJECT_ID}/api-keys`)).json()) as { keys: { id: string; name: string; prefix: string }[] };
  const key = keys.keys.find((k) => demoKey().startsWith(k.prefix))!;
  const invoice = { tool: `jr_invoice_${suffix}`, runId: `jr_inv_${suffix}`, agentId: "billing-agent", stepId: "invoice", args: { order: "order:7", amount: 1999 } };
  const original = await runOnce(agent, invoice);
  const asked = await agent.begin({ ...invoice, args: { order: "order:7", amount: 2099 }, bypass: { reason: "The customer changed the amount" } });
  expect(asked.decision).toBe("approval_required");
  const requestId = "requestId" in asked ? String(asked.requestId) : "";

  await page.goto(`${PROJECT}/approvals`);
  const card = page.locator(`[data-request-id="${requestId}"]`);
  // The key's name, not its id (the id stays beside it, muted).
  await expect(card.getByTestId("resend-asked-by").locator("strong")).toHaveText(key.name);
  await expect(card.getByTestId("resend-run")).toContainText(invoice.runId);
  await expect(card.getByTestId("resend-run")).toContainText("billing-agent");
  await expect(card.getByTestId("resend-outcome")).toContainText("succeeded");
  await expect(card.getByTestId("resend-result")).toContainText('"tool"');
  const diff = card.getByTestId("resend-args-diff");
  await expect(diff.getByTestId("resend-args-diff-before")).toContainText('"amount": 1999');
  await expect(diff.getByTestId("resend-args-diff-after")).toContainText('"amount": 2099');
  await expect(diff.locator('tr[data-kind="changed"]')).toHaveCount(1);
  await expect(diff.locator('tr[data-kind="changed"]')).toContainText("amount");
  await expectNoSeriousA11yViolations(page);

  // The original call, replayed under other args, shows both argument sets on its page.
  expect((await agent.begin({ ...invoice, args: { order: "order:7", amount: 2199 } })).decision).toBe("replay");
  await page.goto(`${PROJECT}/calls/${original.callId}`);
  const replay = page.getByTestId("replay-args-diff");
  await expect(replay.getByTestId("replay-args-diff-before")).toContainText('"amount": 1999');
  await expect(replay.getByTestId("replay-args-diff-after")).toContainText('"amount": 2199');
  await expectNoSeriousA11yViolations(page);
});

test("policies: a save appears in the audit log with who, why and the field diff; Restore brings an old revision back", async () => {
  const tool = TOOLS.main;
  await page.goto(`${PROJECT}/tools/${tool}`);
  // Labels and help in words, no raw field names as labels and no references to a missing DESIGN.md.
  await expect(page.getByText("Keep outcomes for (seconds)")).toBeVisible();
  await expect(page.getByText(/DESIGN\.md/)).toHaveCount(0);
  await page.getByLabel("Keep outcomes for (seconds)").fill("7200");
  await page.getByLabel("Reason for the change").fill("Two hours is enough for journeys");
  await page.getByRole("button", { name: "Save policy" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Saved as revision/ })).toBeVisible();

  await page.goto(`${PROJECT}/audit?action=policy.`);
  const row = page.getByTestId("audit-row").filter({ hasText: "Two hours is enough for journeys" });
  await expect(row).toBeVisible();
  await expect(row).toContainText(ADMIN.email);
  await expect(row).toContainText("policy.updated");
  await expect(row.getByTestId("audit-changes")).toContainText("Keep outcomes for (seconds): inherited → 7200");
  await expect(page.getByTestId("audit-row").filter({ hasNotText: /policy\./ })).toHaveCount(0);
  // The export link carries the same filters.
  await expect(page.getByTestId("audit-export")).toHaveAttribute("href", /\/audit\/export\?action=policy\.$/);
  const csv = await (await page.request.get((await page.getByTestId("audit-export").getAttribute("href"))!)).text();
  expect(csv.split("\n")[0]).toBe("at,actor_type,actor,actor_id,action,target_type,target_id,detail,ip,user_agent,id");
  expect(csv).toContain("Two hours is enough for journeys");
  await expectNoSeriousA11yViolations(page);

  // Restore the revision before the save (loop detection off, TTL inherited).
  await page.goto(`${PROJECT}/tools/${tool}`);
  const revisions = page.getByTestId("policy-revision");
  await expect(revisions.first()).toContainText("Two hours is enough for journeys");
  const older = revisions.nth(1);
  const version = await older.getAttribute("data-version");
  await older.getByRole("button", { name: `Restore v${version}` }).click();
  await older.getByLabel(`Why restore v${version}?`, { exact: false }).fill("Back to the default TTL");
  await older.getByRole("button", { name: `Restore v${version} now` }).click();
  await expect(page.getByRole("status").filter({ hasText: "Restored" })).toBeVisible();
  await expect(revisions.first()).toContainText(`(restored v${version})`);
  await expect(page.getByLabel("Keep outcomes for (seconds)")).toHaveValue("");
  await page.goto(`${PROJECT}/audit?action=policy.restored`);
  await expect(page.getByTestId("audit-row").filter({ hasText: "Back to the default TTL" })).toBeVisible();
});

test("first minutes: / links to sign-in and the dashboard, its curl example uses this origin, and no page asks for a missing favicon", async ({ browser, baseURL }) => {
  const visitor = await (await browser.newContext()).newPage();
  const missing: string[] = [];
  visitor.on("response", (res) => {
    if (res.status() === 404) missing.push(res.url());
  });
  await visitor.goto("/");
  await expect(visitor.getByRole("link", { name: "Operator sign-in" })).toHaveAttribute("href", "/sign-in");
  await expect(visitor.getByRole("link", { name: "Open the dashboard" })).toHaveAttribute("href", "/dashboard");
  await expect(visitor.getByTestId("curl-example")).toContainText(`curl -s ${baseURL}/api/v1/calls/begin`);
  await expect(visitor.locator('link[rel="icon"]')).toHaveAttribute("href", /icon\.svg/);
  await expectNoSeriousA11yViolations(visitor);
  // Signing in lands on the operator's project, not on an interstitial.
  await visitor.getByRole("link", { name: "Operator sign-in" }).click();
  await visitor.getByLabel("Email").fill(ADMIN.email);
  await visitor.getByLabel("Password").fill(ADMIN.password);
  await visitor.getByRole("button", { name: "Sign in" }).click();
  await expect(visitor).toHaveURL(new RegExp(`${PROJECT}$`));
  await expect(visitor.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(visitor.getByText("No project memberships yet")).toHaveCount(0);
  await visitor.goto("/sign-in");
  await expect(visitor).toHaveURL(new RegExp(`${PROJECT}$`));
  expect(missing).toEqual([]);
  await visitor.context().close();
});

/** Every page of the dashboard, with a ready marker to wait for. */
function pages(callId: string, runId: string) {
  return [
    { path: PROJECT, ready: "Overview" },
    { path: `${PROJECT}/approvals`, ready: "Approvals" },
    { path: `${PROJECT}/tools`, ready: /Tools/ },
    { path: `${PROJECT}/tools/${TOOLS.main}`, ready: /Tool: / },
    { path: `${PROJECT}/calls`, ready: "Calls" },
    { path: `${PROJECT}/calls/${callId}`, ready: /call_|Call/ },
    { path: `${PROJECT}/runs`, ready: "Runs" },
    { path: `${PROJECT}/runs/${runId}`, ready: /Run/ },
    { path: `${PROJECT}/storms`, ready: /storms/i },
    { path: `${PROJECT}/audit`, ready: "Audit log" },
    { path: `${PROJECT}/settings`, ready: "Settings" },
  ];
}

test("laptop width 1440: the content uses the width and the calls table shows every column without scrolling", async () => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${PROJECT}/calls`);
  const wrap = page.locator(".table-wrap").filter({ has: page.getByTestId("calls-table") });
  await expect(wrap).toBeVisible();
  const { scroll, client } = await wrap.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(scroll).toBeLessThanOrEqual(client + 1);
  await expect(page.getByRole("columnheader", { name: "Key" })).toBeInViewport();
  const main = await page.locator("main.dash-main").boundingBox();
  expect(main!.width).toBeGreaterThan(1100);
});

test("phone width 390: navigation folds, filters start folded, no page scrolls sideways, and every table's last column can be reached", async () => {
  // Eleven pages, each checked with axe: minutes on a loaded machine, more with two workers sharing
  // its cores (4 min ran out at load 25-33). A ceiling, not an expectation.
  test.setTimeout(480_000);
  await page.setViewportSize({ width: 390, height: 844 });
  for (const { path, ready } of pages(replayed[0]!, `jr_${suffix}_0`)) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1, name: ready }).first()).toBeVisible();
    await page.waitForLoadState("networkidle");
    // The navigation is one button until opened.
    await expect(page.getByRole("link", { name: "Audit log" })).toBeHidden();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(1);
    for (const wrap of await page.locator(".table-wrap").all()) {
      if (!(await wrap.isVisible())) continue;
      // Scroll the table's own box to its end: its last column header (or, for card lists, the last cell) is then on screen.
      await wrap.evaluate((el) => {
        el.scrollIntoView({ block: "center" });
        el.scrollTo({ left: el.scrollWidth });
      });
      const headers = wrap.locator("thead th");
      // A stacked table (cards on a phone) hides its header row: its rows' last cell is the last column.
      const stacked = (await wrap.locator("table.stacked").count()) > 0;
      const last = !stacked && (await headers.count()) > 0 ? headers.last() : wrap.locator("tbody tr").first().locator("td, th").last();
      if ((await last.count()) === 0) continue;
      const box = await last.boundingBox();
      expect(box, `${path}: last column`).not.toBeNull();
      expect(box!.x + Math.min(box!.width, 20), `${path}: last column reachable`).toBeLessThanOrEqual(390);
      expect(box!.x, `${path}: last column reachable`).toBeGreaterThanOrEqual(0);
      // Its caption stays in view while the table scrolls sideways.
      const caption = wrap.locator("caption");
      if (await caption.count()) {
        const at = await caption.first().boundingBox();
        expect(at, `${path}: caption`).not.toBeNull();
        expect(at!.x, `${path}: caption visible while scrolled`).toBeGreaterThanOrEqual(0);
        expect(at!.x, `${path}: caption visible while scrolled`).toBeLessThan(390 - 40);
      }
    }
    await expectNoSeriousA11yViolations(page);
  }
  await page.goto(PROJECT);
  await page.getByRole("button", { name: /^Menu/ }).click();
  await page.getByRole("link", { name: "Calls" }).click();
  await expect(page).toHaveURL(new RegExp(`${PROJECT}/calls$`));
  // The filter form starts folded behind one button.
  await expect(page.getByLabel("Tool", { exact: true })).toBeHidden();
  await page.getByRole("button", { name: /Show filters/ }).click();
  await expect(page.getByLabel("Tool", { exact: true })).toBeVisible();
  await page.setViewportSize({ width: 1280, height: 800 });
});
