import { randomBytes } from "node:crypto";
import { type Page, type Response, expect, test } from "@playwright/test";
import { ADMIN, signIn } from "./dashboard-helpers";

const PROJECT = "/projects/proj_demo";

let page: Page;

test.beforeAll(async ({ browser }) => {
  page = await signIn(browser, ADMIN);
});

test.afterAll(async () => {
  await page?.context().close();
});

/**
 * A change made while a list is still on its first load must show up in it: the list's answer
 * (taken before the change) arrives after it, as on a slow network. React Query joins an
 * invalidation to a first load in flight, so without the cancel in refetchAfterChange the panel
 * kept showing the older answer until a reload.
 */
test("an allowlist entry added while the list is still loading appears in it without a reload", async () => {
  const pattern = `race-${randomBytes(3).toString("hex")}.example.com`;
  let releaseFirstLoad!: () => void;
  const changed = new Promise<void>((resolve) => (releaseFirstLoad = resolve));
  let firstLoadTaken!: () => void;
  const firstLoadSeen = new Promise<void>((resolve) => (firstLoadTaken = resolve));
  let loads = 0;
  await page.route("**/api/v1/operator/projects/proj_demo/outbound-allowlist", async (route) => {
    if (route.request().method() !== "GET" || loads++ > 0) return route.continue();
    // The server answers now, before the change; the page gets that answer only after it.
    const before = await route.fetch();
    firstLoadTaken();
    await changed;
    await route.fulfill({ response: before });
  });
  try {
    await page.goto(`${PROJECT}/settings`);
    // The first load was asked for from the browser: the page is hydrated and the list is pending.
    await firstLoadSeen;
    const allowlist = page.getByTestId("outbound-allowlist-panel");
    await allowlist.getByLabel("Host, IP or CIDR").fill(pattern);
    const added = page.waitForResponse((res: Response) => res.request().method() === "POST" && res.url().endsWith("/outbound-allowlist"));
    await allowlist.getByRole("button", { name: "Add" }).click();
    expect((await added).status()).toBe(200);
    releaseFirstLoad();
    await expect(allowlist.getByTestId("outbound-entry-row").filter({ hasText: pattern })).toBeVisible();
    expect(loads).toBeGreaterThanOrEqual(2);
  } finally {
    releaseFirstLoad();
    await page.unroute("**/api/v1/operator/projects/proj_demo/outbound-allowlist");
  }
});
