import { randomBytes } from "node:crypto";
import { type Page, expect, test } from "@playwright/test";
import { type Agent, agentClient, demoKey, runOnce } from "./agent";
import { ADMIN, SHOTS, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";

const PROJECT_ID = "proj_demo";
const PROJECT = `/projects/${PROJECT_ID}`;
const API = `/api/v1/operator/projects/${PROJECT_ID}`;
const suffix = randomBytes(3).toString("hex");
/** Tools of this spec only: the e2e server and its database are shared with the other specs. */
const TOOLS = { mail: `spark_mail_${suffix}`, lookup: `spark_lookup_${suffix}`, storm: `storm_charge_${suffix}` };
const VIEWER = { email: `viewer-${suffix}@idemgate.local`, password: `viewer-pw-${suffix}`, name: "Settings viewer" };
/** Buttons that change something; a viewer must see none of them. */
const MUTATING = /approve|deny|evict|resolve|revoke|save policy|create key|add member|remove|edit|restore/i;

test.describe.configure({ mode: "serial" });

let page: Page;
let agent: Agent;
let stormId = "";

/** The agent API with any key, answering the status (the agent helper throws on errors). */
async function beginStatus(baseURL: string, key: string, body: Record<string, unknown>): Promise<number> {
  const res = await fetch(`${baseURL}/api/v1/calls/begin`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.status;
}

/** Every sparkline in a tool's overview row drew its areas (non-empty SVG paths). */
async function expectSparklineDrawn(p: Page, tool: string) {
  const row = p.getByTestId("tool-dedup-row").filter({ hasText: tool });
  await expect(row).toBeVisible();
  const curves = row.getByTestId("sparkline").locator("path.recharts-area-curve");
  await expect(curves).toHaveCount(2);
  for (const curve of await curves.all()) await expect(curve).toHaveAttribute("d", /^M[\d.]+,[\d.]+.*[LC]/);
}

test.beforeAll(async ({ browser, baseURL }) => {
  agent = agentClient(baseURL!, demoKey());
  // Per-tool traffic for the sparklines: mail executes 4 times and is replayed twice; lookup only executes.
  for (let run = 0; run < 4; run++) {
    const body = { tool: TOOLS.mail, runId: `spark_${suffix}_${run}`, stepId: "notify", args: { to: run } };
    expect((await runOnce(agent, body)).decision).toBe("execute");
    if (run < 2) expect((await agent.begin(body)).decision).toBe("replay");
    await runOnce(agent, { tool: TOOLS.lookup, runId: `spark_${suffix}_${run}`, stepId: "lookup", args: { id: run } });
  }
  page = await signIn(browser, ADMIN);
});

test.afterAll(async () => {
  await page?.context().close();
});

test("settings: an admin creates an API key shown once, it works for an agent, and once revoked in the UI it gets 401", async ({ baseURL }) => {
  await page.goto(`${PROJECT}/settings`);
  await expect(page.getByRole("heading", { name: "Settings" })).toBeVisible();
  const panel = page.getByTestId("api-keys-panel");
  await expect(panel.getByTestId("api-key-row").first()).toBeVisible();

  // Inline validation from the API's schema: a blank name is refused before any request.
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.locator("#api-key-name-error")).toBeVisible();
  const name = `e2e-settings-${suffix}`;
  await page.getByLabel("Key name").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();

  const reveal = page.getByTestId("new-api-key");
  await expect(reveal).toContainText("This is the only time the key is shown");
  await expect(reveal.getByRole("button", { name: "Copy" })).toBeVisible();
  const key = await reveal.getByLabel("API key").inputValue();
  expect(key).toMatch(/^ig_[A-Za-z0-9_-]{20,}$/);
  const row = panel.getByTestId("api-key-row").filter({ hasText: name });
  await expect(row).toContainText("active");
  await expect(row).toContainText(key.slice(0, 10));
  await page.screenshot({ path: `${SHOTS}/settings.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);

  // The new key works against the agent API: begin → execute → complete.
  const body = { tool: TOOLS.mail, runId: `key_${suffix}`, stepId: "notify", args: { to: "new-key" } };
  expect((await runOnce(agentClient(baseURL!, key), body)).decision).toBe("execute");

  // Shown once: after Done, and after a reload, the key is nowhere on the page.
  await reveal.getByRole("button", { name: "Done, I saved it" }).click();
  await expect(reveal).toHaveCount(0);
  await page.reload();
  await expect(row).toBeVisible();
  expect(await page.content()).not.toContain(key);

  // Revoke with a confirmation, from the keyboard.
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  const confirm = row.getByRole("button", { name: "Revoke key" });
  await expect(confirm).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(row.locator(".badge")).toHaveText("revoked");
  await expect(row.getByRole("button", { name: /Revoke/ })).toHaveCount(0);
  // The revoking process forgets the key at once; other instances within their 5 s auth cache.
  await expect.poll(() => beginStatus(baseURL!, key, { ...body, stepId: "again" }), { timeout: 10_000 }).toBe(401);
  expect(await beginStatus(baseURL!, demoKey(), { ...body, runId: `demo_${suffix}` })).toBe(200);
});

test("settings: an admin adds a viewer by email with a new account; the members list shows the role", async () => {
  await page.goto(`${PROJECT}/settings`);
  const panel = page.getByTestId("members-panel");
  await expect(panel.getByTestId("member-row").or(panel.getByTestId("empty-state")).first()).toBeVisible();
  await panel.getByLabel("Email", { exact: true }).fill("not-an-email");
  await panel.getByRole("button", { name: "Add member" }).click();
  await expect(page.locator("#member-email-error")).toBeVisible();
  await panel.getByLabel("Email", { exact: true }).fill(VIEWER.email);
  await panel.getByLabel("Role", { exact: true }).selectOption("viewer");
  await panel.getByLabel("Name (new account)").fill(VIEWER.name);
  await panel.getByLabel("Password (new account)").fill(VIEWER.password);
  await panel.getByRole("button", { name: "Add member" }).click();
  await expect(panel.getByRole("status").filter({ hasText: `${VIEWER.email} was added as viewer` })).toBeVisible();
  const row = panel.getByTestId("member-row").filter({ hasText: VIEWER.email });
  const role = row.getByLabel(`Role of ${VIEWER.email}`);
  await expect(role).toHaveValue("viewer");
  // A role change applies at once (and back: the viewer test below needs a viewer).
  await role.selectOption("operator");
  await expect(panel.getByRole("status").filter({ hasText: `${VIEWER.email} is now operator` })).toBeVisible();
  await role.selectOption("viewer");
  await expect(panel.getByRole("status").filter({ hasText: `${VIEWER.email} is now viewer` })).toBeVisible();
  const members = (await (await page.request.get(`${API}/members`)).json()) as { members: { email: string; role: string }[] };
  expect(members.members.find((m) => m.email === VIEWER.email)?.role).toBe("viewer");

  // Phone width and dark mode: no page-wide horizontal scroll, and still no serious a11y issue.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.reload();
  await expect(panel.getByTestId("member-row").first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
  await page.screenshot({ path: `${SHOTS}/settings-phone-dark.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 720 });
});

test("overview: the dedup rate per tool, each with a sparkline", async () => {
  await page.goto(PROJECT);
  await expect(page.getByRole("heading", { name: "Dedup rate by tool" })).toBeVisible();
  await expectSparklineDrawn(page, TOOLS.mail);
  await expectSparklineDrawn(page, TOOLS.lookup);
  // mail: 6 executions (two in the API key test) and 2 replays; lookup: 4 executions. Columns: tool, calls, hits, rate.
  const cells = (tool: string) => page.getByTestId("tool-dedup-row").filter({ hasText: tool }).locator("td");
  await expect(cells(TOOLS.mail).nth(1)).toHaveText("8");
  await expect(cells(TOOLS.mail).nth(2)).toHaveText("2");
  await expect(cells(TOOLS.mail).nth(3)).toHaveText("25%");
  await expect(cells(TOOLS.lookup).nth(3)).toHaveText("0%");
  const mail = page.getByTestId("tool-dedup-row").filter({ hasText: TOOLS.mail });
  await expect(mail.getByRole("link", { name: TOOLS.mail })).toHaveAttribute("href", new RegExp(`/calls\\?tool=${TOOLS.mail}&from=.+&to=.+`));
});

test("storms: a storm's detail charts its rate against the baseline, with the runs and keys and a link to its calls", async ({ baseURL }) => {
  // One-second windows and a low bar (the e2e server runs the detector every 500 ms).
  const policy = { policy: { storm: { windowSeconds: 1, minHits: 10, factor: 5 }, loop: { enabled: false } }, reason: "e2e: fast storms" };
  const put = await page.request.put(`/api/v1/admin/projects/${PROJECT_ID}/policies/${TOOLS.storm}`, { data: policy, headers: { origin: baseURL! } });
  expect(put.status()).toBe(200);
  const body = { tool: TOOLS.storm, runId: `storm_${suffix}`, stepId: "charge", args: { order: "order:9" } };
  expect((await runOnce(agent, body)).decision).toBe("execute");
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  // A quiet baseline (~2 hits a second), then a burst far above it.
  for (let i = 0; i < 9; i++, await sleep(500)) await agent.begin(body);
  await Promise.all(Array.from({ length: 40 }, () => agent.begin(body)));
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`${API}/storms`);
        const storms = ((await res.json()) as { storms: { id: string; tool: string }[] }).storms;
        stormId = storms.find((s) => s.tool === TOOLS.storm)?.id ?? "";
        return stormId;
      },
      { timeout: 20_000 },
    )
    .not.toBe("");

  await page.goto(`${PROJECT}/storms`);
  await page.getByTestId("storm-row").filter({ hasText: TOOLS.storm }).getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`${PROJECT}/storms/${stormId}$`));
  await expect(page.getByRole("heading", { name: `Storm on ${TOOLS.storm}` })).toBeVisible();
  const chart = page.getByTestId("storm-rate-chart");
  // Bars, one per window: no smoothed curve.
  await expect(chart.locator(".recharts-bar-rectangle path").first()).toBeVisible();
  await expect(chart.locator("path.recharts-area-curve")).toHaveCount(0);
  await expect(chart.locator(".recharts-reference-line")).toHaveCount(2);
  await expect(chart).toContainText("threshold");
  await expect(page.getByTestId("drivers-run")).toContainText(body.runId);
  await expect(page.getByTestId("drivers-key").locator("tbody tr")).toHaveCount(1);
  const calls = page.getByRole("link", { name: "See the calls of this storm" });
  // The storm's own calls: its tool's dedup hits while it lasted.
  await expect(calls).toHaveAttribute("href", new RegExp(`^${PROJECT}/calls\\?tool=${TOOLS.storm}&decision=replay%2Cin_progress%2Crefused&decidedFrom=[^&]+&decidedTo=[^&]+$`));
  await page.screenshot({ path: `${SHOTS}/storms-detail.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);
});

test("a viewer sees the overview charts and the storms, with no mutating controls, and the API refuses their changes", async ({ browser }) => {
  const viewer = await signIn(browser, VIEWER);
  try {
    await viewer.goto(PROJECT);
    const bars = viewer.getByTestId("decisions-chart").locator(".recharts-bar-rectangle path");
    await expect(bars.first()).toBeVisible();
    await expectSparklineDrawn(viewer, TOOLS.mail);
    await expect(viewer.getByTestId("kpi-dedup-hits").locator(".value")).toHaveText(/^\d/);
    await expect(viewer.getByRole("button", { name: MUTATING })).toHaveCount(0);
    await viewer.screenshot({ path: `${SHOTS}/overview-viewer.png`, fullPage: true });
    await expectNoSeriousA11yViolations(viewer);

    await viewer.goto(`${PROJECT}/storms`);
    await expect(viewer.getByTestId("storm-row").filter({ hasText: TOOLS.storm })).toBeVisible();
    await expect(viewer.getByRole("button", { name: MUTATING })).toHaveCount(0);
    await expectNoSeriousA11yViolations(viewer);
    await viewer.goto(`${PROJECT}/storms/${stormId}`);
    await expect(viewer.getByTestId("storm-rate-chart").locator(".recharts-bar-rectangle path").first()).toBeVisible();
    await expect(viewer.getByRole("button", { name: MUTATING })).toHaveCount(0);
    await viewer.screenshot({ path: `${SHOTS}/storms-detail-viewer.png`, fullPage: true });
    await expectNoSeriousA11yViolations(viewer);

    await viewer.goto(`${PROJECT}/settings`);
    await expect(viewer.getByText("API keys and members are managed by project admins")).toBeVisible();
    await expect(viewer.getByTestId("api-keys-panel")).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: MUTATING })).toHaveCount(0);
    await expectNoSeriousA11yViolations(viewer);

    // The API refuses anyway: with the viewer's session and this site's Origin, every change is 403.
    const origin = new URL(viewer.url()).origin;
    const keys = await page.request.get(`${API}/api-keys`);
    const someKey = ((await keys.json()) as { keys: { id: string }[] }).keys[0]!.id;
    const attempts: [string, string, unknown][] = [
      ["POST", `${API}/api-keys`, { name: "viewer-key" }],
      ["POST", `${API}/api-keys/${someKey}/revoke`, {}],
      ["POST", `${API}/members`, { email: `x-${suffix}@idemgate.local`, role: "admin", password: "password-123" }],
      ["POST", `${API}/resend-requests`, { callId: "call_x", reason: "viewer" }],
    ];
    for (const [method, url, data] of attempts) {
      const res = await viewer.request.fetch(url, { method, data, headers: { origin } });
      expect(res.status(), `${method} ${url}`).toBe(403);
    }
    expect((await viewer.request.get(`${API}/stats/dedup`)).status()).toBe(200);
  } finally {
    await viewer.context().close();
  }
});
