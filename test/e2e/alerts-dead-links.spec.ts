import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Browser, expect, test } from "@playwright/test";
import { startAlertReceivers } from "../helpers/alert-receivers";
import { type TestServer, launchServer } from "../helpers/launch-server";
import { ADMIN, expectNoSeriousA11yViolations } from "./dashboard-helpers";

/**
 * Issue #44: an install with no public URL sends alert links nobody can open. The suite's own server
 * has one (BETTER_AUTH_URL), so this spec starts a second, bare server (no BETTER_AUTH_URL, no
 * IDEMGATE_PUBLIC_URL) on a database of its own: Settings → Alerts warns, and a channel is added only
 * once the admin ticks "Add it anyway", as the API requires (400 naming allowDeadLinks otherwise).
 */
test.describe.configure({ mode: "serial" });

let bare: TestServer;
let receivers: Awaited<ReturnType<typeof startAlertReceivers>>;

test.beforeAll(async () => {
  receivers = await startAlertReceivers({ routingKey: "unused" });
  const tmp = mkdtempSync(path.join(os.tmpdir(), "idemgate-e2e-bare-"));
  // The worker may inherit either from the shell: this server must have neither.
  const { BETTER_AUTH_URL: _auth, IDEMGATE_PUBLIC_URL: _public, ...env } = process.env;
  const saved = process.env;
  process.env = env;
  try {
    bare = await launchServer(`file:${path.join(tmp, "bare.db")}`, tmp, { IDEMGATE_SEED_DEMO: "true", IDEMGATE_SIGN_IN_RATE_LIMIT: "100000" });
  } finally {
    process.env = saved;
  }
});

test.afterAll(async () => {
  await bare?.stop();
  await receivers?.close();
});

async function signInTo(browser: Browser, baseURL: string) {
  const page = await (await browser.newContext({ baseURL })).newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  // A server just started renders its first pages slowly on a loaded machine: a budget, not an expectation.
  await expect(page).toHaveURL(/\/projects\/[^/]+$/, { timeout: 90_000 });
  return page;
}

test("Settings → Alerts without a public URL: the page warns, and a channel is added only when the admin confirms its links will not open", async ({ browser }) => {
  const page = await signInTo(browser, bare.baseUrl);
  await page.goto("/projects/proj_demo/settings");
  const panel = page.getByTestId("alerts-panel");
  await expect(panel.getByTestId("alerts-no-public-url")).toContainText("Links in alerts will not work", { timeout: 60_000 });
  await expect(panel.getByTestId("alerts-no-public-url")).toContainText("IDEMGATE_PUBLIC_URL");

  const allowlist = page.getByTestId("outbound-allowlist-panel");
  await allowlist.getByLabel("Host, IP or CIDR").fill(`127.0.0.1:${receivers.port}`);
  await allowlist.getByRole("button", { name: "Add" }).click();
  await expect(allowlist.getByTestId("outbound-entry-row").filter({ hasText: `127.0.0.1:${receivers.port}` })).toBeVisible();

  // Not confirmed: refused, nothing added.
  await panel.getByLabel("Kind").selectOption("slack");
  await panel.getByLabel("Name").fill("dead links");
  await panel.getByLabel("URL").fill(receivers.url("/slack/T0/B0/dead"));
  const confirm = panel.getByRole("checkbox", { name: /Add it anyway: its links will not open/ });
  await expect(confirm).not.toBeChecked();
  await panel.getByRole("button", { name: "Add channel" }).click();
  // The form asks in its own words (the banner above says there is no public URL; this is the refusal).
  await expect(panel.getByRole("alert").filter({ hasText: /tick “Add it anyway” to add it/ })).toBeVisible();
  await expect(panel.getByTestId("alert-channel-row")).toHaveCount(0);

  // Confirmed: added.
  await confirm.check();
  await panel.getByRole("button", { name: "Add channel" }).click();
  await expect(panel.getByTestId("alert-channel-row").filter({ hasText: "dead links" })).toBeVisible();
  await expect(panel.getByTestId("alert-channel-row")).toHaveCount(1);
  await expectNoSeriousA11yViolations(page);
  await page.context().close();
});

test("Settings → Alerts with a public URL (the suite's server): no warning and no confirmation to tick", async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/projects\/[^/]+$/);
  await page.goto("/projects/proj_demo/settings");
  const panel = page.getByTestId("alerts-panel");
  await expect(panel.getByRole("button", { name: "Add channel" })).toBeVisible();
  await expect(panel.getByTestId("alerts-no-public-url")).toHaveCount(0);
  await expect(panel.getByRole("checkbox", { name: /Add it anyway/ })).toHaveCount(0);
  await page.context().close();
});
