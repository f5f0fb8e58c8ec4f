import { randomBytes } from "node:crypto";
import { type Page, expect, test } from "@playwright/test";
import { createTestProject, eventsForCall } from "../helpers/fixtures";
import { agentClient } from "./agent";
import { ADMIN, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";
import { COST_CENTS, GROUPS, SHOTS, TIMED_REVISIONS, Tally, figureTools, scriptFiguresTraffic } from "./figures-traffic";

test.describe.configure({ mode: "serial" });

/**
 * Issue #38: every figure equals what a scripted agent did, counted by the test itself
 * (figures-traffic.ts: one history per case of §1). The test reads the overview, the tools page,
 * every tile's and bar segment's click-through, a tool's page, the runs list and a no-op draft's
 * prediction over each of those histories against its own tally. The storm page and a real draft's
 * prediction, which make traffic of their own, are in figures-storm-draft.spec.ts.
 */
const tag = randomBytes(3).toString("hex");
let TOOLS = figureTools(tag);
/** The timed tool's calls: which failed. */
let timedCalls: { callId: string; failed: boolean }[] = [];
/** The burst's one call: its duplicates' decisions all belong to it. */
let burstCallId = "";
let PROJECT = "";
let PROJECT_ID = "";
let page: Page;
let tally: Tally;

test.beforeAll(async ({ browser, baseURL }) => {
  const project = await createTestProject(process.env.E2E_DATABASE_URL!, `figures e2e ${tag}`);
  PROJECT_ID = project.projectId;
  PROJECT = `/projects/${project.projectId}`;
  const agent = agentClient(baseURL!, project.apiKey);
  tally = new Tally(agent);
  page = await signIn(browser, ADMIN);
  ({ TOOLS, timedCalls, burstCallId } = await scriptFiguresTraffic({ request: page.request, baseURL: baseURL!, projectId: PROJECT_ID, apiKey: project.apiKey, agent, tally, tag }));
});

test.afterAll(async () => {
  await page?.context().close();
});

const value = (id: string) => page.getByTestId(`kpi-${id}`).locator(".value");

/**
 * Each policy mark's label on these charts lies whole inside its chart (a label centred above its
 * line was cut off at the chart's top and right edges), at a laptop's and a phone's width; a picture
 * of each chart shows it.
 */
async function marksReadable(charts: string[], name: string) {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    for (const chart of charts) {
      const figure = page.getByTestId(chart).first();
      await figure.scrollIntoViewIfNeeded();
      const labels = figure.getByTestId("chart-mark-label");
      await expect(labels.first()).toBeVisible();
      const frame = (await figure.boundingBox())!;
      for (const label of await labels.all()) {
        const box = (await label.boundingBox())!;
        expect(box.width, `${chart} at ${width}: a label with text`).toBeGreaterThan(4);
        expect(box.x, `${chart} at ${width}: left edge`).toBeGreaterThanOrEqual(frame.x);
        expect(box.y, `${chart} at ${width}: top edge`).toBeGreaterThanOrEqual(frame.y);
        expect(box.x + box.width, `${chart} at ${width}: right edge`).toBeLessThanOrEqual(frame.x + frame.width);
      }
      await figure.screenshot({ path: `${SHOTS}/38-${name}-${chart}-${width}.png` });
    }
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

test("overview: every tile equals the test's tally; preview_required has its own tile, no Other", async () => {
  await page.goto(PROJECT);
  await expect(value("calls")).toHaveText(String(tally.total()), { timeout: 60_000 });
  await expect(value("executions")).toHaveText(String(tally.total("execute")));
  await expect(value("dedup-hits")).toHaveText(String(tally.total("replay") + tally.total("in_progress") + tally.total("refused")));
  await expect(value("blocked")).toHaveText(String(tally.total("blocked")));
  await expect(value("preview-required")).toHaveText(String(tally.total("preview_required")));
  await expect(value("conflicts")).toHaveText(String(tally.total("conflict")));
  await expect(value("approval-required")).toHaveText(String(tally.total("approval_required")));
  await expect(page.getByTestId("kpi-other")).toHaveCount(0);
  // Each figure's definition is one hover away.
  await expect(page.getByTestId("kpi-dedup-hits")).toHaveAttribute("title", /replay, in progress, refused/);
  await expectNoSeriousA11yViolations(page);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${SHOTS}/38-overview-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
});

test("overview: every tool's policy changes in the range are marked on both charts, labelled with the tool", async () => {
  // The test's own saves: the preview and shadow tools' policies once, the strict tool's twice, the timed tool's TIMED_REVISIONS times (all in this hour).
  const audit = (await (await page.request.get(`/api/v1/operator/projects/${PROJECT_ID}/audit?action=policy.&limit=500`)).json()) as {
    entries: { detail: { tool: string; version: number } }[];
  };
  expect(audit.entries.map((e) => e.detail.tool).sort()).toEqual([TOOLS.preview, TOOLS.strict, TOOLS.strict, TOOLS.shadow, ...Array(TIMED_REVISIONS).fill(TOOLS.timed)].sort());
  await page.goto(PROJECT);
  for (const chart of ["decisions-chart", "dedup-rate-chart"]) {
    await expect(page.getByTestId(chart).locator(".recharts-reference-line")).toHaveCount(audit.entries.length, { timeout: 60_000 });
    // Saved within seconds, they share a bucket and one label that names each tool and version.
    const versions = (tool: string) => audit.entries.filter((e) => e.detail.tool === tool).map((e) => `${tool} v${e.detail.version}`);
    for (const label of [...versions(TOOLS.preview), ...versions(TOOLS.strict), ...versions(TOOLS.shadow), ...versions(TOOLS.timed)]) await expect(page.getByTestId(chart)).toContainText(label);
  }
  const caption = page.getByTestId("overview-policy-changes");
  for (const { detail } of audit.entries) await expect(caption).toContainText(`${detail.tool} v${detail.version}`);
  // The rate chart of one tool marks that tool's changes only.
  await page.locator("#rate-tool").selectOption(TOOLS.timed);
  await expect(page.getByTestId("dedup-rate-chart").locator(".recharts-reference-line")).toHaveCount(TIMED_REVISIONS);
  await marksReadable(["decisions-chart", "dedup-rate-chart"], "overview-marks");
  await expectNoSeriousA11yViolations(page);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${SHOTS}/38-overview-policy-marks-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
});

test("a tile's click-through reaches every decision it counted, loop blocks without a record included", async () => {
  await page.goto(PROJECT);
  await expect(value("blocked")).toHaveText(String(tally.total("blocked")), { timeout: 60_000 });
  await page.getByTestId("kpi-blocked").getByRole("link").click();
  await expect(page).toHaveURL(/decision=blocked/);
  const behind = page.getByTestId("decisions-behind");
  await expect(behind).toHaveAttribute("data-total", String(tally.total("blocked")));
  const withoutRecord = Number(await behind.getAttribute("data-without-record"));
  await expect(page.getByTestId("orphan-decision")).toHaveCount(withoutRecord);
  // Listed calls plus decisions without a call: every counted block is reachable.
  // The loop tool's blocks never made a record; the burst's blocks are decisions on its one call,
  // which the list shows once (the line above the list says it counts decisions, lists calls).
  expect(withoutRecord).toBe(tally.count(TOOLS.loop, "blocked"));
  const burstBlocked = tally.count(TOOLS.burst, "blocked");
  await expect(page.getByTestId("call-row")).toHaveCount(burstBlocked > 0 ? 1 : 0);
  if (burstBlocked > 0) await expect(page.locator(`[data-call-id="${burstCallId}"]`)).toBeVisible();
  await expect(page.getByTestId("orphan-decision").first()).toContainText(TOOLS.loop);
  await expectNoSeriousA11yViolations(page);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${SHOTS}/38-decisions-behind-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });

  await page.goto(PROJECT);
  await page.getByTestId("kpi-preview-required").getByRole("link").click();
  await expect(page.getByTestId("decisions-behind")).toHaveAttribute("data-total", String(tally.total("preview_required")));
});

test("every decision tile clicks through to exactly the decisions it counts", async () => {
  for (const group of GROUPS) {
    const tile = { id: group.tile, decisions: group.decisions };
    const counted = tile.decisions.reduce((sum, decision) => sum + tally.total(decision), 0);
    await page.goto(PROJECT);
    await expect(value(tile.id)).toHaveText(String(counted), { timeout: 60_000 });
    await page.getByTestId(`kpi-${tile.id}`).getByRole("link").click();
    await expect(page).toHaveURL(new RegExp(`decision=${encodeURIComponent(tile.decisions.join(","))}`));
    const behind = page.getByTestId("decisions-behind");
    await expect(behind, tile.id).toHaveAttribute("data-total", String(counted));
    const withoutRecord = Number(await behind.getAttribute("data-without-record"));
    await expect(page.getByTestId("orphan-decision")).toHaveCount(withoutRecord);
    if (withoutRecord < counted) await expect(page.getByTestId("call-row").first()).toBeVisible();
  }
});

test("every segment of the calls-by-decision chart clicks through to the decisions it counted, each group present", async () => {
  // Every group the gate can answer with (this traffic makes each); each one's bars, wherever the minutes fell.
  const groups = GROUPS.map((group) => ({ id: group.bar, decisions: group.decisions }));
  const segmentsOf = (id: string) => page.getByTestId("decisions-chart").locator(`.bar-${id} .recharts-bar-rectangle`);
  for (const group of groups) {
    const counted = group.decisions.reduce((sum, decision) => sum + tally.total(decision), 0);
    expect(counted, group.id).toBeGreaterThan(0);
    let reached = 0;
    for (let i = 0; ; i++) {
      await page.goto(PROJECT);
      await expect(value("calls")).toHaveText(String(tally.total()), { timeout: 60_000 });
      await expect(segmentsOf(group.id).first()).toBeVisible();
      const segments = await segmentsOf(group.id).all();
      if (i >= segments.length) break;
      const box = await segments[i]!.boundingBox();
      if (!box || box.height < 1) continue;
      await segments[i]!.click();
      await expect(page).toHaveURL(new RegExp(`/calls\\?decision=${encodeURIComponent(group.decisions.join(","))}&decidedFrom=`));
      const behind = page.getByTestId("decisions-behind");
      await expect(behind).toHaveAttribute("data-total", /^[1-9]\d*$/);
      reached += Number(await behind.getAttribute("data-total"));
      // Every decision counted is reachable: a call row, or a decision listed without one.
      const withoutRecord = Number(await behind.getAttribute("data-without-record"));
      await expect(page.getByTestId("orphan-decision")).toHaveCount(withoutRecord);
      if (withoutRecord < Number(await behind.getAttribute("data-total"))) await expect(page.getByTestId("call-row").first()).toBeVisible();
    }
    expect(reached, `${group.id}: the segments' click-throughs together`).toBe(counted);
  }
});

test("tools page: every tool's calls, executions and dedup hits equal the tally; Dedup hits means what the overview means", async () => {
  await page.goto(`${PROJECT}/tools`);
  for (const tool of tally.tools()) {
    const row = page.getByTestId("tool-row").filter({ has: page.getByRole("link", { name: tool, exact: true }) });
    await expect(row.getByTestId("tool-calls"), tool).toHaveText(String(tally.toolTotal(tool)));
    await expect(row.getByTestId("tool-executions"), tool).toHaveText(String(tally.count(tool, "execute") + tally.count(tool, "verify")));
    await expect(row.getByTestId("tool-dedup-hits"), tool).toHaveText(String(tally.count(tool, "replay") + tally.count(tool, "in_progress") + tally.count(tool, "refused")));
  }
  await expect(page.getByRole("columnheader", { name: "Dedup hits" })).toHaveAttribute("title", /replay, in_progress, refused/);
});

test("a no-op draft predicts no change: a TTL one second longer, over every history of §1 (concurrent duplicates, an older revision, shadow mode, preview: approve)", async () => {
  for (const tool of [TOOLS.dedup, TOOLS.loop, TOOLS.burst, TOOLS.strict, TOOLS.shadow, TOOLS.preview]) {
    await page.goto(`${PROJECT}/tools/${tool}`);
    const ttl = page.getByLabel("Keep outcomes for (seconds)");
    await expect(ttl).toBeVisible();
    const current = Number((await ttl.inputValue()) || "86400");
    await ttl.fill(String(current + 1));
    const simulation = page.getByTestId("policy-simulation");
    await expect(simulation).toContainText("Same decisions as now for these calls.", { timeout: 30_000 });
    for (const row of await simulation.getByTestId("simulation-row").all()) {
      expect(await row.getAttribute("data-draft")).toBe(await row.getAttribute("data-current"));
    }
    // Calls decided under another revision than the one in force are said to be.
    if (tool === TOOLS.strict) {
      await expect(page.getByTestId("simulation-drift")).toContainText(
        new RegExp(`${tally.toolTotal(TOOLS.strict)} calls of the sample were decided under an older revision of this policy \\(v\\d+\\), not the one in force`),
      );
    }
  }
  // Under preview: approve, preview_required is its own row, not "Approval required".
  await expect(page.getByTestId("policy-simulation").locator('[data-decision="previewRequired"]')).toHaveAttribute("data-draft", String(tally.count(TOOLS.preview, "preview_required")));
});

test("runs show a saga only where a step registered an undo", async () => {
  await page.goto(`${PROJECT}/runs`);
  const row = page.getByTestId("run-row").filter({ hasText: `run_d_${tag}_0` });
  await expect(row.getByTestId("run-saga-state")).toHaveText("—");
  await page.goto(`${PROJECT}/runs/run_d_${tag}_0`);
  await expect(page.getByTestId("saga-none")).toBeVisible();
  await expect(page.getByText("Abort this run")).toHaveCount(0);
});

test("the tool's page: latency and failure rate equal what the test computes from the ledger it wrote", async () => {
  const durations: number[] = [];
  for (const { callId } of timedCalls) {
    const events = await eventsForCall(process.env.E2E_DATABASE_URL!, PROJECT_ID, callId, { until: (e) => e.some((x) => x.type === "complete") });
    const begun = events.find((e) => e.type === "begin" && e.decision === "execute")!;
    const done = events.find((e) => e.type === "complete")!;
    durations.push(done.at - begun.at);
  }
  durations.sort((a, b) => a - b);
  const rank = (q: number) => durations[Math.ceil(q * durations.length) - 1]!;
  const failures = timedCalls.filter((c) => c.failed).length;
  const pct = (rate: number) => `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)}%`;

  await page.goto(`${PROJECT}/tools/${TOOLS.timed}`);
  const trends = page.getByTestId("tool-trends");
  await expect(trends.getByTestId("tool-kpi-calls").locator(".value")).toHaveText(String(timedCalls.length), { timeout: 30_000 });
  await expect(trends.getByTestId("tool-kpi-latency-p50").locator(".value")).toHaveText(`${rank(0.5).toLocaleString("en-US")} ms`);
  await expect(trends.getByTestId("tool-kpi-latency-p95").locator(".value")).toHaveText(`${rank(0.95).toLocaleString("en-US")} ms`);
  await expect(trends.getByTestId("tool-kpi-failure-rate").locator(".value")).toHaveText(pct(failures / timedCalls.length));
  await expect(trends.getByTestId("tool-kpi-dedup-hits").locator(".value")).toHaveText("0");
  // Cost: the sum of what the test's completes reported, as money.
  const cents = COST_CENTS.reduce((sum, c) => sum + c, 0);
  await expect(trends.getByTestId("tool-kpi-cost").locator(".value")).toHaveText(new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(cents / 100));
  // Every chart of the page marks each policy revision saved in the range, and only those.
  const history = (await (await page.request.get(`/api/v1/admin/projects/${PROJECT_ID}/policies/${TOOLS.timed}/revisions`)).json()) as { revisions: { at: string }[] };
  const inRange = history.revisions.filter((r) => Date.parse(r.at) > Date.now() - 3_600_000).length;
  expect(inRange).toBe(TIMED_REVISIONS);
  for (const chart of ["decisions-chart", "tool-cost-chart", "tool-storms-chart"]) {
    await expect(trends.getByTestId(chart).locator(".recharts-reference-line")).toHaveCount(inRange);
  }
  await expect(trends.getByTestId("tool-cost-chart").locator(".recharts-bar-rectangle").first()).toBeVisible();
  await marksReadable(["decisions-chart", "tool-cost-chart", "tool-storms-chart"], "tool-marks");
  await expectNoSeriousA11yViolations(page);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${SHOTS}/38-tool-page-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });

  // The tools list links to it, and the dedup tool's page agrees with the tools list and the tally.
  await page.goto(`${PROJECT}/tools/${TOOLS.dedup}`);
  await expect(page.getByTestId("tool-kpi-calls").locator(".value")).toHaveText(String(tally.toolTotal(TOOLS.dedup)));
  await expect(page.getByTestId("tool-kpi-dedup-hits").locator(".value")).toHaveText(String(tally.count(TOOLS.dedup, "replay")));
});
