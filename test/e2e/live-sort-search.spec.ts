import { randomBytes } from "node:crypto";
import { type Locator, type Page, expect, test } from "@playwright/test";
import { createTestProject } from "../helpers/fixtures";
import { type Agent, agentClient, runOnce } from "./agent";
import { ADMIN, SHOTS, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";

/**
 * Issue #38 §2 "Live and sortable / Find a call / Policy form", in a real browser against the real
 * server, on a project of our own whose calls this spec makes and counts itself.
 */
test.describe.configure({ mode: "serial" });

let PROJECT = "";
let projectId = "";
const tag = randomBytes(3).toString("hex");
const TOOLS = { live: `live_${tag}`, sorted: `sorted_${tag}`, card: `card_${tag}` };
let page: Page;
let agent: Agent;
let step = 0;
const call = (tool: string, runId: string, args: Record<string, unknown> = {}) => runOnce(agent, { tool, runId, stepId: `s${step++}`, args: { ...args, n: step } });

test.beforeAll(async ({ browser, baseURL }) => {
  const project = await createTestProject(process.env.E2E_DATABASE_URL!, `live and sortable e2e ${tag}`);
  projectId = project.projectId;
  PROJECT = `/projects/${project.projectId}`;
  agent = agentClient(baseURL!, project.apiKey);
  page = await signIn(browser, ADMIN);
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL! });
});

test.afterAll(async () => {
  await page?.context().close();
});

const rows = () => page.getByTestId("call-row");
const firstRowId = () => rows().first().getAttribute("data-call-id");
/** The rows' text in one column (the stacked table labels each cell). */
const column = (label: string) => page.locator(`[data-testid="call-row"] td[data-label="${label}"]`).allInnerTexts();
const header = (name: RegExp) => page.locator("th[aria-sort]").filter({ has: page.getByRole("button", { name }) });

test("calls: Follow shows new calls at the top without a reload; paused, nothing moves and an 'N new' badge counts them", async () => {
  const run = `run_live_${tag}`;
  const first = await call(TOOLS.live, run);
  const second = await call(TOOLS.live, run);
  await page.goto(`${PROJECT}/calls?tool=${TOOLS.live}`);
  await expect(rows()).toHaveCount(2);
  expect(await firstRowId()).toBe(second.callId);
  await expect(page.getByTestId("follow-toggle")).toHaveAttribute("aria-pressed", "false");
  // A marker on the window: were the page reloaded, it would be gone.
  await page.evaluate(() => ((window as unknown as { liveMarker: number }).liveMarker = 1));

  // Paused (the default): a new call is counted, the list stays as it was.
  const third = await call(TOOLS.live, run);
  await expect(page.getByTestId("new-calls")).toHaveText(/^1 new/);
  await expect(rows()).toHaveCount(2);
  expect(await firstRowId()).toBe(second.callId);
  await page.screenshot({ path: `${SHOTS}/calls-paused-new.png`, fullPage: true });

  // Following: the waiting call shows, and the next ones appear at the top as they arrive.
  await page.getByTestId("follow-toggle").click();
  await expect(page.getByTestId("follow-toggle")).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("follow-toggle")).toHaveText("Pause");
  await expect(rows()).toHaveCount(3);
  expect(await firstRowId()).toBe(third.callId);
  const fourth = await call(TOOLS.live, run);
  await expect(rows()).toHaveCount(4);
  await expect(rows().first()).toHaveAttribute("data-call-id", fourth.callId);
  await expect(page.getByTestId("new-calls")).toHaveCount(0);

  // Paused again: still, counted, and a click on the badge shows them.
  await page.getByTestId("follow-toggle").click();
  const fifth = await call(TOOLS.live, run);
  const sixth = await call(TOOLS.live, run);
  await expect(page.getByTestId("new-calls")).toHaveText(/^2 new/);
  await expect(rows()).toHaveCount(4);
  await expect(rows().first()).toHaveAttribute("data-call-id", fourth.callId);
  await page.getByTestId("new-calls").click();
  await expect(rows()).toHaveCount(6);
  await expect(rows().first()).toHaveAttribute("data-call-id", sixth.callId);
  await expect(rows().nth(1)).toHaveAttribute("data-call-id", fifth.callId);
  await expect(page.getByTestId("new-calls")).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { liveMarker?: number }).liveMarker)).toBe(1);
  expect(first.callId).not.toBe(second.callId);
});

test("tables sort by a header click: the sort is in the URL, aria-sort says it, a reload keeps it (calls, runs, tools)", async () => {
  // Three runs with 1, 3 and 2 calls of one tool, made in the order b, a, c.
  const runs = { a: `run_a_${tag}`, b: `run_b_${tag}`, c: `run_c_${tag}` };
  await call(TOOLS.sorted, runs.b);
  for (let i = 0; i < 3; i++) await call(TOOLS.sorted, runs.a);
  for (let i = 0; i < 2; i++) await call(TOOLS.sorted, runs.c);

  await page.goto(`${PROJECT}/calls?tool=${TOOLS.sorted}`);
  await expect(rows()).toHaveCount(6);
  await expect(header(/^Run \/ step/)).toHaveAttribute("aria-sort", "none");
  await header(/^Run \/ step/).getByRole("button").click();
  await expect(page).toHaveURL(/[?&]sort=run(&|$)/);
  await expect(page).toHaveURL(new RegExp(`[?&]tool=${TOOLS.sorted}`));
  await expect(header(/^Run \/ step/)).toHaveAttribute("aria-sort", "ascending");
  await expect(header(/^First seen/)).toHaveAttribute("aria-sort", "none");
  const runOf = (text: string) => text.split(" / ")[0]!.trim();
  await expect.poll(async () => (await column("Run / step")).map(runOf)).toEqual([runs.a, runs.a, runs.a, runs.b, runs.c, runs.c]);
  await header(/^Run \/ step/).getByRole("button").click();
  await expect(page).toHaveURL(/[?&]sort=-run(&|$)/);
  await expect(header(/^Run \/ step/)).toHaveAttribute("aria-sort", "descending");
  await expect.poll(async () => (await column("Run / step")).map(runOf)).toEqual([runs.c, runs.c, runs.b, runs.a, runs.a, runs.a]);
  await page.reload();
  await expect(header(/^Run \/ step/)).toHaveAttribute("aria-sort", "descending");
  await expect.poll(async () => (await column("Run / step")).map(runOf)).toEqual([runs.c, runs.c, runs.b, runs.a, runs.a, runs.a]);
  // A filter applied afterwards keeps the sort: both are the view.
  await page.getByLabel("Run", { exact: true }).fill(runs.a);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/[?&]sort=-run(&|$)/);
  await expect(rows()).toHaveCount(3);

  // Runs: by calls, largest first on the first click.
  await page.goto(`${PROJECT}/runs?runId=run_`);
  const runRows = page.getByTestId("run-row");
  await expect(runRows.filter({ hasText: runs.c })).toBeVisible();
  await page.locator("th[aria-sort]").getByRole("button", { name: /^Calls/ }).click();
  await expect(page).toHaveURL(/[?&]sort=-calls(&|$)/);
  await expect(page.locator("th[aria-sort]").filter({ hasText: /^Calls/ })).toHaveAttribute("aria-sort", "descending");
  const callCounts = async () => (await page.locator('[data-testid="run-row"] td[data-label="Calls"]').allInnerTexts()).map((t) => Number(t.split(" ")[0]));
  await expect.poll(async () => {
    const counts = await callCounts();
    return counts.every((n, i) => i === 0 || counts[i - 1]! >= n) && counts.length >= 3;
  }).toBe(true);
  await expectNoSeriousA11yViolations(page);

  // Tools: by calls, then by name.
  await page.goto(`${PROJECT}/tools`);
  await expect(page.getByTestId("tool-row").filter({ hasText: TOOLS.sorted })).toBeVisible();
  await page.locator("th[aria-sort]").getByRole("button", { name: /^Calls/ }).click();
  await expect(page).toHaveURL(/[?&]sort=-calls(&|$)/);
  await expect.poll(async () => (await page.getByTestId("tool-calls").allInnerTexts()).map(Number)).toEqual(
    [...(await page.getByTestId("tool-calls").allInnerTexts()).map(Number)].sort((x, y) => y - x),
  );
  await page.locator("th[aria-sort]").getByRole("button", { name: /^Tool/ }).click();
  await expect(page).toHaveURL(/[?&]sort=tool(&|$)/);
  await expect(page.locator("th[aria-sort]").filter({ hasText: /^Tool/ })).toHaveAttribute("aria-sort", "ascending");
  await page.screenshot({ path: `${SHOTS}/tools-sorted.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);
});

test("calls: a sort is the server's over every call: the extreme comes first though newest first it is on a later page; Load more keeps the order; Follow is newest first only", async () => {
  // Seven calls of one run, three to a page. The tool first by name is the oldest call and the
  // last by name the second oldest: newest first, both are on the last pages.
  const run = `run_paged_${tag}`;
  const names = ["a", "z", "m", "q", "m", "q", "m"].map((letter) => `${letter}_sort_${tag}`);
  const made: string[] = [];
  for (const tool of names) made.push((await call(tool, run)).callId);
  const byName = [...names].sort();
  const caption = page.getByTestId("calls-count");
  const toggle = page.getByTestId("follow-toggle");

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${PROJECT}/calls?runId=${run}&limit=3`);
  await expect(rows()).toHaveCount(3);
  await expect(rows().first()).toHaveAttribute("data-call-id", made[6]!);
  await expect(page.locator(`[data-call-id="${made[0]}"]`)).toHaveCount(0);
  await expect(caption).toContainText("newest first");

  await header(/^Tool/).getByRole("button").click();
  await expect(page).toHaveURL(/[?&]sort=tool(&|$)/);
  await expect(rows().first()).toHaveAttribute("data-call-id", made[0]!);
  await expect(rows()).toHaveCount(3);
  await expect(caption).toContainText("all matching calls sorted by tool, ascending");
  await expect.poll(() => column("Tool")).toEqual(byName.slice(0, 3));
  // Load more continues in the sort, to the end: every call once, in order.
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(rows()).toHaveCount(6);
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(rows()).toHaveCount(7);
  await expect.poll(() => column("Tool")).toEqual(byName);

  await header(/^Tool/).getByRole("button").click();
  await expect(page).toHaveURL(/[?&]sort=-tool(&|$)/);
  await expect(rows().first()).toHaveAttribute("data-call-id", made[1]!);
  await expect(caption).toContainText("sorted by tool, descending");

  // Sorted, the list does not follow: a new call is counted, not inserted; the toggle says why.
  await expect(toggle).toBeDisabled();
  await expect(page.getByTestId("follow-state")).toHaveText(/Sorted: the list stays as it is \(Follow live works newest first\)/);
  const late = await call(`b_sort_${tag}`, run);
  await expect(page.getByTestId("new-calls")).toHaveText(/^1 new/);
  await expect(rows().first()).toHaveAttribute("data-call-id", made[1]!);
  await expect(page.locator(`[data-call-id="${late.callId}"]`)).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/calls-sorted-1440.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${SHOTS}/calls-sorted-390.png`, fullPage: true });
  await page.setViewportSize({ width: 1440, height: 900 });
  await expectNoSeriousA11yViolations(page);

  // Back to newest first: Follow works again and the late call is on top.
  await page.getByTestId("newest-first").click();
  await expect(page).not.toHaveURL(/[?&]sort=/);
  await expect(toggle).toBeEnabled();
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await expect(rows().first()).toHaveAttribute("data-call-id", late.callId);
  const later = await call(`c_sort_${tag}`, run);
  await expect(rows().first()).toHaveAttribute("data-call-id", later.callId);
  await expect(page.getByTestId("follow-state")).toHaveText(/^Following/);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: `${SHOTS}/calls-following-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
});

test("phone width: the cards hide the sorting headers, so one control sorts them the same way (calls and runs)", async () => {
  const run = `run_phone_${tag}`;
  const names = ["k", "y", "c", "p"].map((letter) => `${letter}_phone_${tag}`);
  const made: string[] = [];
  for (const tool of names) made.push((await call(tool, run)).callId);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${PROJECT}/calls?runId=${run}&limit=2`);
  await expect(rows()).toHaveCount(2);
  const picker = page.getByTestId("sort-picker");
  await expect(picker).toBeVisible();
  await picker.getByRole("combobox", { name: "Sort calls" }).selectOption("tool:desc");
  await expect(page).toHaveURL(/[?&]sort=-tool(&|$)/);
  // The server's sort: the last tool by name is first though it was made second.
  await expect(rows().first()).toHaveAttribute("data-call-id", made[1]!);
  await expect(page.getByTestId("calls-count")).toContainText("sorted by tool, descending");
  await page.getByRole("button", { name: "Load more" }).click();
  await expect.poll(() => column("Tool")).toEqual([...names].sort().reverse());
  // The phone's control and the headers are one sort: back to the list's own order.
  await picker.getByRole("combobox", { name: "Sort calls" }).selectOption("");
  await expect(page).not.toHaveURL(/[?&]sort=/);
  await expect(rows().first()).toHaveAttribute("data-call-id", made[3]!);
  await page.screenshot({ path: `${SHOTS}/calls-sort-picker-390.png`, fullPage: true });

  await page.goto(`${PROJECT}/runs`);
  const runsPicker = page.getByTestId("sort-picker").getByRole("combobox", { name: "Sort runs" });
  await runsPicker.selectOption("calls:desc");
  await expect(page).toHaveURL(/[?&]sort=-calls(&|$)/);
  await expect(page.getByTestId("runs-count")).toContainText("sorted by calls, descending");
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
  await expectNoSeriousA11yViolations(page);
  // At laptop width the headers sort and the control is not shown.
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(page.getByTestId("sort-picker")).toBeHidden();
});

test("search: a value in args or result finds its calls; a redacted value is not found; the view (filters + search + sort) is a link that restores it", async () => {
  const order = `ord-${tag}-77`;
  const secret = `Pin${randomBytes(4).toString("hex")}`;
  const put = await page.request.put(`/api/v1/admin/projects/${projectId}/policies/${TOOLS.card}`, {
    data: { policy: { redactFields: ["card"] }, reason: "e2e: cards are secret" },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(put.ok()).toBe(true);
  const run = `run_search_${tag}`;
  const byArgs = await call(TOOLS.card, run, { order, card: secret });
  await call(TOOLS.card, run, { order: "another" });

  await page.goto(`${PROJECT}/calls`);
  const searchBox = page.getByLabel("Args or result contain");
  await searchBox.fill(order.toUpperCase());
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]q=${order.toUpperCase()}`));
  await expect(rows()).toHaveCount(1);
  await expect(rows().first()).toHaveAttribute("data-call-id", byArgs.callId);

  // The redacted card number is stored masked: searching it finds nothing.
  await searchBox.fill(secret);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByText("No calls match these filters")).toBeVisible();

  // A view: a tool, a search and a sort, saved as a link and opened elsewhere.
  await page.goto(`${PROJECT}/calls?tool=${TOOLS.card}`);
  // The e2e agent's result names the tool, so the tag alone would find both calls: the order id is in one.
  await searchBox.fill(order);
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(rows()).toHaveCount(1);
  await header(/^Key/).getByRole("button").click();
  await expect(page).toHaveURL(/[?&]sort=key(&|$)/);
  await page.getByTestId("copy-view-link").click();
  await expect(page.getByTestId("copy-view-status")).toHaveText("Link copied");
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toBe(page.url());
  const url = new URL(link);
  expect([url.searchParams.get("tool"), url.searchParams.get("q"), url.searchParams.get("sort")]).toEqual([TOOLS.card, order, "key"]);
  const other = await page.context().newPage();
  await other.goto(link);
  await expect(other.getByTestId("call-row")).toHaveCount(1);
  await expect(other.getByTestId("call-row").first()).toHaveAttribute("data-call-id", byArgs.callId);
  await expect(other.getByLabel("Args or result contain")).toHaveValue(order);
  await expect(other.locator("th[aria-sort]").filter({ has: other.getByRole("button", { name: /^Key/ }) })).toHaveAttribute("aria-sort", "ascending");
  await other.close();
  await page.screenshot({ path: `${SHOTS}/calls-search.png`, fullPage: true });
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: `${SHOTS}/calls-search-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await expectNoSeriousA11yViolations(page);
});

test("policy form: six sections; the prediction stays in view while a field far down is edited (1440 and 390 px)", async () => {
  const inView = async (locator: Locator) => expect(locator).toBeInViewport();
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${PROJECT}/tools/${TOOLS.sorted}`);
    await expect(page.getByRole("heading", { name: /Tool:/ })).toBeVisible();
    const sections = page.getByTestId("policy-section");
    await expect(sections).toHaveCount(6);
    expect(await sections.locator("legend").allInnerTexts()).toEqual([
      expect.stringMatching(/^Identity and keys/),
      expect.stringMatching(/^Duplicates/),
      expect.stringMatching(/^Leases and TTL/),
      expect.stringMatching(/^Loops and budgets/),
      expect.stringMatching(/^Approvals and previews/),
      expect.stringMatching(/^Storms/),
    ]);
    // Edit a field in the last section, then one in the second: the prediction is on screen each time.
    const stormField = page.locator('[data-section="storms"] #field-storm-minHits');
    await stormField.scrollIntoViewIfNeeded();
    await stormField.fill("7");
    await inView(stormField);
    await inView(page.getByTestId("policy-prediction"));
    await page.getByLabel("On a duplicate").selectOption("refuse");
    await inView(page.getByTestId("policy-prediction"));
    await expect(page.getByTestId("policy-prediction").getByTestId("policy-simulation")).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/policy-sections-${width}.png`, fullPage: false });
    if (width === 1440) await expectNoSeriousA11yViolations(page);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
});
