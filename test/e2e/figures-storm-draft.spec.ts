import { randomBytes } from "node:crypto";
import { type Page, expect, test } from "@playwright/test";
import { createTestProject } from "../helpers/fixtures";
import { type Agent, agentClient } from "./agent";
import { ADMIN, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";
import { SHOTS, Tally } from "./figures-traffic";

test.describe.configure({ mode: "serial" });

/**
 * Issue #38, the figures that need traffic of their own: a storm's page against the duplicates the
 * test sent, and a real draft's prediction against the same traffic replayed after saving it.
 */
const tag = randomBytes(3).toString("hex");
let PROJECT = "";
let PROJECT_ID = "";
let page: Page;
let agent: Agent;
let tally: Tally;

test.beforeAll(async ({ browser, baseURL }) => {
  const project = await createTestProject(process.env.E2E_DATABASE_URL!, `storm and draft e2e ${tag}`);
  PROJECT_ID = project.projectId;
  PROJECT = `/projects/${project.projectId}`;
  agent = agentClient(baseURL!, project.apiKey);
  tally = new Tally(agent);
  page = await signIn(browser, ADMIN);
});

test.afterAll(async () => {
  await page?.context().close();
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
        const answer = await tally.call({ tool, runId: `run_${label}_${tag}_${run}`, stepId: `s${step}`, args: { q: "same" } });
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
