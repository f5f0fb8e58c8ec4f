import { randomBytes } from "node:crypto";
import { type Page, expect, test } from "@playwright/test";
import { createTestProject, eventsForCall } from "../helpers/fixtures";
import { type Agent, agentClient } from "./agent";
import { ADMIN, expectNoSeriousA11yViolations } from "./dashboard-helpers";

test.describe.configure({ mode: "serial" });

/**
 * Issue #38: every figure equals what a scripted agent did, counted by the test itself. The agent
 * dedupes, loops (a loop block before any record), meets a tool under `preview: approve`, changes
 * args under a strict key (conflicts), asks for resends (approval required), sends duplicates at
 * once while a call runs and after it finished, and calls a tool in shadow mode; a policy changes
 * after its calls. The test tallies every answer and reads the overview, the tools page, every
 * tile's and bar segment's click-through, the runs list and a no-op draft's prediction over each
 * of those histories against its own tally.
 */
const tag = randomBytes(3).toString("hex");
const TOOLS = { dedup: `create_ticket_${tag}`, loop: `search_kb_${tag}`, preview: `delete_user_${tag}`, timed: `render_pdf_${tag}`, strict: `transfer_funds_${tag}`, burst: `send_invoice_${tag}`, shadow: `refund_order_${tag}` };
/** The timed tool's calls: which failed. */
const timedCalls: { callId: string; failed: boolean }[] = [];
// Beside screens.spec.ts's screenshots (test-results/screens unless SCREENS_DIR says otherwise).
const SHOTS = process.env.SCREENS_DIR ?? "test-results/screens";
/** The timed tool's reported costs (USD), summed by the test in cents so no float drift hides a wrong sum. */
const COST_CENTS = [125, 10, 20, 333, 1, 999];
/** Policy revisions the test saves for the timed tool: the tool page marks each on every chart. */
const TIMED_REVISIONS = 2;
/** The burst's one call: its duplicates' decisions all belong to it. */
let burstCallId = "";
let PROJECT = "";
let PROJECT_ID = "";
let page: Page;
let agent: Agent;

/** The decisions each tile and bar counts, as the issue words them (a tile's id, its bar's class). */
const GROUPS = [
  { tile: "executions", bar: "executions", decisions: ["execute", "verify"] },
  { tile: "dedup-hits", bar: "dedupHits", decisions: ["replay", "in_progress", "refused"] },
  { tile: "conflicts", bar: "conflicts", decisions: ["conflict"] },
  { tile: "approval-required", bar: "approvalRequired", decisions: ["approval_required"] },
  { tile: "preview-required", bar: "previewRequired", decisions: ["preview_required"] },
  { tile: "blocked", bar: "blocked", decisions: ["blocked"] },
];

/** The test's own tally: decisions by tool, and the ids of calls that never created a record. */
const tally = new Map<string, Map<string, number>>();
const count = (tool: string, decision: string) => tally.get(tool)?.get(decision) ?? 0;
/** Every begin of one tool, whatever it was answered. */
const toolTotal = (tool: string) => [...(tally.get(tool)?.values() ?? [])].reduce((sum, n) => sum + n, 0);
const total = (decision?: string) => [...tally.values()].reduce((sum, byDecision) => sum + [...byDecision].filter(([d]) => !decision || d === decision).reduce((s, [, n]) => s + n, 0), 0);

/** A begin counted in the tally and left as answered (a concurrent duplicate completes nothing). */
async function agentBegin(body: Record<string, unknown>) {
  const answer = await agent.begin(body);
  const byDecision = tally.get(String(body.tool)) ?? new Map<string, number>();
  byDecision.set(answer.decision, (byDecision.get(answer.decision) ?? 0) + 1);
  tally.set(String(body.tool), byDecision);
  return answer;
}

async function begin(body: Record<string, unknown>) {
  const answer = await agentBegin(body);
  if (answer.decision === "execute") await agent.complete(answer.callId, answer.leaseToken, { ok: true });
  return answer;
}

test.beforeAll(async ({ browser, baseURL }) => {
  const project = await createTestProject(process.env.E2E_DATABASE_URL!, `figures e2e ${tag}`);
  PROJECT_ID = project.projectId;
  PROJECT = `/projects/${project.projectId}`;
  agent = agentClient(baseURL!, project.apiKey);
  // Signed in with a generous budget: a loaded machine took over 15 s for the first sign-in's redirect.
  page = await (await browser.newContext()).newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/projects\/[^/]+$/, { timeout: 90_000 });
  const put = await page.request.put(`/api/v1/admin/projects/${PROJECT_ID}/policies/${TOOLS.preview}`, {
    data: { policy: { preview: "approve" }, reason: "figures e2e: a tool that asks for a preview first" },
    headers: { origin: baseURL! },
  });
  expect(put.status()).toBe(200);
  // Dedup: each run executes once, then the model asks again (a replay).
  for (let run = 0; run < 4; run++) {
    const body = { tool: TOOLS.dedup, runId: `run_d_${tag}_${run}`, stepId: "create", args: { title: `t${run}` } };
    await begin(body);
    await begin(body);
  }
  // A loop: the same search under new step ids; the third is blocked before it has any record.
  for (let run = 0; run < 2; run++) {
    for (let step = 0; step < 3; step++) await begin({ tool: TOOLS.loop, runId: `run_l_${tag}_${run}`, stepId: `s${step}`, args: { q: "same" } });
  }
  for (let run = 0; run < 3; run++) await begin({ tool: TOOLS.preview, runId: `run_p_${tag}_${run}`, stepId: "delete", args: { user: run } });
  // Conflicts: a tool that refuses other args under a key it has seen; the model re-plans the amount.
  const strict = await page.request.put(`/api/v1/admin/projects/${PROJECT_ID}/policies/${TOOLS.strict}`, {
    data: { policy: { onArgsMismatch: "reject" }, reason: "figures e2e: other args under one key are a conflict" },
    headers: { origin: baseURL! },
  });
  expect(strict.status()).toBe(200);
  for (let run = 0; run < 2; run++) {
    await begin({ tool: TOOLS.strict, runId: `run_s_${tag}_${run}`, stepId: "transfer", args: { amount: 100 } });
    await begin({ tool: TOOLS.strict, runId: `run_s_${tag}_${run}`, stepId: "transfer", args: { amount: 120 } });
  }
  // The strict tool's policy changes after its calls: they were decided under an older revision.
  const later = await page.request.put(`/api/v1/admin/projects/${PROJECT_ID}/policies/${TOOLS.strict}`, {
    data: { policy: { onArgsMismatch: "reject", ttlSeconds: 7_200 }, reason: "figures e2e: a revision after the calls" },
    headers: { origin: baseURL! },
  });
  expect(later.status()).toBe(200);
  // Concurrent duplicates: five copies while the first runs (in progress), three at once after it finished (replays).
  const first = await agentBegin({ tool: TOOLS.burst, runId: `run_b_${tag}`, stepId: "send", args: { invoice: 7 } });
  if (first.decision !== "execute") throw new Error(`burst: ${first.decision}`);
  burstCallId = first.callId;
  await Promise.all(Array.from({ length: 5 }, () => agentBegin({ tool: TOOLS.burst, runId: `run_b_${tag}`, stepId: "send", args: { invoice: 7 } })));
  await agent.complete(first.callId, first.leaseToken, { ok: true });
  await Promise.all(Array.from({ length: 3 }, () => agentBegin({ tool: TOOLS.burst, runId: `run_b_${tag}`, stepId: "send", args: { invoice: 7 } })));
  // A tool in shadow mode: its duplicates run again, with what enforce would have answered recorded.
  const shadow = await page.request.put(`/api/v1/admin/projects/${PROJECT_ID}/policies/${TOOLS.shadow}`, {
    data: { policy: { mode: "shadow" }, reason: "figures e2e: a tool watched in shadow mode" },
    headers: { origin: baseURL! },
  });
  expect(shadow.status()).toBe(200);
  for (let i = 0; i < 3; i++) await begin({ tool: TOOLS.shadow, runId: `run_sh_${tag}`, stepId: "refund", args: { order: 1 } });
  // Approval required: the agent asks to send a finished ticket again (bypass: approval, the default).
  for (const run of [0, 1]) {
    await begin({ tool: TOOLS.dedup, runId: `run_d_${tag}_${run}`, stepId: "create", args: { title: `t${run}` }, bypass: { reason: "the customer says it never arrived" } });
  }
  // Revisions of the timed tool's policy, each marked on every chart of its page.
  for (let v = 0; v < TIMED_REVISIONS; v++) {
    const saved = await page.request.put(`/api/v1/admin/projects/${PROJECT_ID}/policies/${TOOLS.timed}`, {
      data: { policy: { ttlSeconds: 3_600 + v }, reason: `figures e2e: revision ${v + 1}` },
      headers: { origin: baseURL! },
    });
    expect(saved.status()).toBe(200);
  }
  // A tool whose executions take a while, two of them failing, each reporting what it cost: the
  // per-tool page's latency, failure rate and cost.
  for (let i = 0; i < 6; i++) {
    const answer = await agent.begin({ tool: TOOLS.timed, runId: `run_t_${tag}_${i}`, stepId: "render", args: { doc: i } });
    if (answer.decision !== "execute") throw new Error(`expected execute, got ${answer.decision}`);
    tally.set(TOOLS.timed, new Map([["execute", i + 1]]));
    await new Promise((resolve) => setTimeout(resolve, 40 * (i + 1)));
    const failed = i % 3 === 2;
    const res = await fetch(`${baseURL}/api/v1/calls/${answer.callId}/complete`, {
      method: "POST",
      headers: { authorization: `Bearer ${project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        leaseToken: answer.leaseToken,
        cost: { amount: COST_CENTS[i]! / 100, currency: "USD" },
        ...(failed ? { outcome: "failed", error: { message: "renderer crashed", retryable: false } } : { outcome: "succeeded", result: { pages: i } }),
      }),
    });
    expect(res.status).toBe(200);
    timedCalls.push({ callId: answer.callId, failed });
  }
  expect(total("blocked") - count(TOOLS.burst, "blocked")).toBe(2);
  expect(total("preview_required")).toBe(3);
  expect(total("conflict")).toBe(2);
  expect(total("approval_required")).toBe(2);
  expect(count(TOOLS.burst, "in_progress"), JSON.stringify([...(tally.get(TOOLS.burst) ?? [])])).toBe(5);
  // After it finished they are steps of the run again: replays until the loop rule trips, then blocked.
  expect(count(TOOLS.burst, "replay") + count(TOOLS.burst, "blocked")).toBe(3);
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
  await expect(value("calls")).toHaveText(String(total()), { timeout: 60_000 });
  await expect(value("executions")).toHaveText(String(total("execute")));
  await expect(value("dedup-hits")).toHaveText(String(total("replay") + total("in_progress") + total("refused")));
  await expect(value("blocked")).toHaveText(String(total("blocked")));
  await expect(value("preview-required")).toHaveText(String(total("preview_required")));
  await expect(value("conflicts")).toHaveText(String(total("conflict")));
  await expect(value("approval-required")).toHaveText(String(total("approval_required")));
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
  await expect(value("blocked")).toHaveText(String(total("blocked")), { timeout: 60_000 });
  await page.getByTestId("kpi-blocked").getByRole("link").click();
  await expect(page).toHaveURL(/decision=blocked/);
  const behind = page.getByTestId("decisions-behind");
  await expect(behind).toHaveAttribute("data-total", String(total("blocked")));
  const withoutRecord = Number(await behind.getAttribute("data-without-record"));
  await expect(page.getByTestId("orphan-decision")).toHaveCount(withoutRecord);
  // Listed calls plus decisions without a call: every counted block is reachable.
  // The loop tool's blocks never made a record; the burst's blocks are decisions on its one call,
  // which the list shows once (the line above the list says it counts decisions, lists calls).
  expect(withoutRecord).toBe(count(TOOLS.loop, "blocked"));
  const burstBlocked = count(TOOLS.burst, "blocked");
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
  await expect(page.getByTestId("decisions-behind")).toHaveAttribute("data-total", String(total("preview_required")));
});

test("every decision tile clicks through to exactly the decisions it counts", async () => {
  for (const group of GROUPS) {
    const tile = { id: group.tile, decisions: group.decisions };
    const counted = tile.decisions.reduce((sum, decision) => sum + total(decision), 0);
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
    const counted = group.decisions.reduce((sum, decision) => sum + total(decision), 0);
    expect(counted, group.id).toBeGreaterThan(0);
    let reached = 0;
    for (let i = 0; ; i++) {
      await page.goto(PROJECT);
      await expect(value("calls")).toHaveText(String(total()), { timeout: 60_000 });
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
  for (const tool of tally.keys()) {
    const row = page.getByTestId("tool-row").filter({ has: page.getByRole("link", { name: tool, exact: true }) });
    await expect(row.getByTestId("tool-calls"), tool).toHaveText(String(toolTotal(tool)));
    await expect(row.getByTestId("tool-executions"), tool).toHaveText(String(count(tool, "execute") + count(tool, "verify")));
    await expect(row.getByTestId("tool-dedup-hits"), tool).toHaveText(String(count(tool, "replay") + count(tool, "in_progress") + count(tool, "refused")));
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
        new RegExp(`${toolTotal(TOOLS.strict)} calls of the sample were decided under an older revision of this policy \\(v\\d+\\), not the one in force`),
      );
    }
  }
  // Under preview: approve, preview_required is its own row, not "Approval required".
  await expect(page.getByTestId("policy-simulation").locator('[data-decision="previewRequired"]')).toHaveAttribute("data-draft", String(count(TOOLS.preview, "preview_required")));
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
  await expect(page.getByTestId("tool-kpi-calls").locator(".value")).toHaveText(String(toolTotal(TOOLS.dedup)));
  await expect(page.getByTestId("tool-kpi-dedup-hits").locator(".value")).toHaveText(String(count(TOOLS.dedup, "replay")));
});


test("a storm's page: its dedup hits and the duplicates the loop detector blocked equal the test's tally, and each click-through lists them", async ({ baseURL }) => {
  // Vocabulary (issue #38 §1): dedup hits are replay + in_progress + refused on every page. A
  // duplicate the loop detector blocked is Blocked (the overview counts it there); the storm page
  // shows those beside its hits, so every duplicate the agent sent is counted once.
  const tool = `charge_storm_${tag}`;
  const windowSeconds = 5;
  const put = await page.request.put(`/api/v1/admin/projects/${PROJECT_ID}/policies/${tool}`, {
    data: { policy: { storm: { windowSeconds, minHits: 10, factor: 5, absoluteMinHits: 10, absoluteDedupRate: 0 } }, reason: "figures e2e: storms in seconds" },
    headers: { origin: baseURL! },
  });
  expect(put.status()).toBe(200);
  // The burst starts as a window starts, so its first window holds enough hits to open the storm
  // and no duplicate falls before the storm's first window.
  await expect.poll(() => Date.now() % (windowSeconds * 1000) < 1_000, { timeout: 30_000, intervals: [50] }).toBe(true);
  const answers = new Map<string, number>();
  await Promise.all(
    Array.from({ length: 24 }, async (_, r) => {
      // Each run executes once, then asks again 1–4 times: the second ask is a replay, later ones
      // make a loop (repeats 3) and are blocked.
      const body = { tool, runId: `run_s_${tag}_${r}`, stepId: "charge", args: { order: r } };
      for (let i = 0; i < 2 + (r % 4); i++) {
        const answer = await agent.begin(body);
        answers.set(answer.decision, (answers.get(answer.decision) ?? 0) + 1);
        if (answer.decision === "execute") await agent.complete(answer.callId, answer.leaseToken, { ok: true });
      }
    }),
  );
  const n = (decision: string) => answers.get(decision) ?? 0;
  const hits = n("replay") + n("in_progress") + n("refused");
  const blockedDuplicates = n("blocked");
  expect(n("execute")).toBe(24);
  expect(blockedDuplicates).toBeGreaterThan(0);

  // The storm closes after its quiet windows; its figures are final then.
  let stormId = "";
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/api/v1/operator/projects/${PROJECT_ID}/storms`);
        const storm = ((await res.json()) as { storms: { id: string; tool: string; status: string }[] }).storms.find((s) => s.tool === tool);
        stormId = storm?.id ?? "";
        return storm?.status ?? "none";
      },
      { timeout: 120_000, intervals: [500] },
    )
    .toBe("closed");

  await page.goto(`${PROJECT}/storms/${stormId}`);
  await expect(page.getByTestId("storm-dedup-hits").getByRole("link")).toHaveText(String(hits), { timeout: 30_000 });
  await expect(page.getByTestId("storm-blocked-duplicates")).toHaveAttribute("data-count", String(blockedDuplicates), { timeout: 30_000 });
  await expect(page.getByTestId("storm-duplicates")).toHaveText(String(hits + blockedDuplicates));
  await expect(page.getByTestId("storm-dedup-hits")).toHaveAttribute("title", /replay, in_progress, refused/);
  await expectNoSeriousA11yViolations(page);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `${SHOTS}/38-storm-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });

  // Each figure's click-through: the decisions it counted, in the storm's span.
  await page.getByTestId("storm-dedup-hits").getByRole("link").click();
  await expect(page).toHaveURL(/decision=replay%2Cin_progress%2Crefused/);
  await expect(page.getByTestId("decisions-behind")).toHaveAttribute("data-total", String(hits), { timeout: 30_000 });
  await page.goBack();
  await page.getByTestId("storm-blocked-duplicates").getByRole("link").click();
  await expect(page).toHaveURL(/decision=blocked/);
  const behind = page.getByTestId("decisions-behind");
  await expect(behind).toHaveAttribute("data-total", String(blockedDuplicates), { timeout: 30_000 });
  // Each blocked duplicate was about a call that exists: all reachable from the calls listed.
  await expect(behind).toHaveAttribute("data-without-record", "0");
  await expect(page.getByTestId("call-row").first()).toBeVisible();
  await expectNoSeriousA11yViolations(page);
});

test("a real draft's prediction equals the decisions of the same traffic replayed after saving it", async () => {
  // A tool whose runs search the same thing four times under new step ids: under the default loop
  // rule (3 repeats) the third and fourth are blocked. The draft trips at 2.
  const tool = `lookup_${tag}`;
  const traffic = async (label: string) => {
    const seen = new Map<string, number>();
    for (let run = 0; run < 3; run++) {
      for (let step = 0; step < 4; step++) {
        const answer = await begin({ tool, runId: `run_${label}_${tag}_${run}`, stepId: `s${step}`, args: { q: "same" } });
        seen.set(answer.decision, (seen.get(answer.decision) ?? 0) + 1);
      }
    }
    return seen;
  };
  await traffic("before");
  await page.goto(`${PROJECT}/tools/${tool}`);
  const repeats = page.getByLabel("Loop: repeats to trip");
  await expect(repeats).toBeVisible({ timeout: 30_000 });
  await repeats.fill("2");
  const simulation = page.getByTestId("policy-simulation");
  await expect(simulation).toContainText("Saving changes how these calls are decided.", { timeout: 30_000 });
  await expect(simulation).toHaveAttribute("aria-busy", "false");
  const predicted = new Map<string, number>();
  for (const row of await simulation.getByTestId("simulation-row").all()) predicted.set(String(await row.getAttribute("data-decision")), Number(await row.getAttribute("data-draft")));
  await page.getByLabel("Reason for the change").fill("figures e2e: loops trip at two repeats");
  await page.getByRole("button", { name: "Save policy" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Saved as revision/ })).toBeVisible();

  // The same traffic into fresh runs, decided by the saved policy.
  const replayed = await traffic("after");
  const TALLY: Record<string, string> = { execute: "executed", verify: "executed", replay: "deduped", in_progress: "deduped", refused: "refused", conflict: "conflicts", blocked: "blocked", approval_required: "approvalRequired", preview_required: "previewRequired" };
  const actual = new Map<string, number>();
  for (const [decision, count] of replayed) actual.set(TALLY[decision]!, (actual.get(TALLY[decision]!) ?? 0) + count);
  const nonZero = (m: Map<string, number>) => Object.fromEntries([...m].filter(([, v]) => v > 0).sort(([a], [b]) => (a < b ? -1 : 1)));
  expect(nonZero(predicted)).toEqual(nonZero(actual));
  // And the draft changed something real: more blocks than before.
  expect(actual.get("blocked")).toBeGreaterThan(0);
  expect(actual.get("executed")).toBe(3);
});
