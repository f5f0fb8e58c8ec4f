import { randomBytes } from "node:crypto";
import { type Page, expect, test } from "@playwright/test";
import { startAlertReceivers } from "../helpers/alert-receivers";
import { ADMIN, SHOTS, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";

const PROJECT = "/projects/proj_demo";
const NAME = `team-${randomBytes(3).toString("hex")}`;

test.describe.configure({ mode: "serial" });

let page: Page;
let receivers: Awaited<ReturnType<typeof startAlertReceivers>>;

test.beforeAll(async ({ browser }) => {
  receivers = await startAlertReceivers({ routingKey: "unused" });
  page = await signIn(browser, ADMIN);
});

test.afterAll(async () => {
  await receivers?.close();
});

test("Settings → Alerts: an admin adds a Slack channel and a rule, sends a test alert, and reads it in the delivery log", async () => {
  await page.goto(`${PROJECT}/settings`);
  const allowlist = page.getByTestId("outbound-allowlist-panel");
  await allowlist.getByLabel("Host, IP or CIDR").fill(`127.0.0.1:${receivers.port}`);
  await allowlist.getByRole("button", { name: "Add" }).click();
  await expect(allowlist.getByTestId("outbound-entry-row").filter({ hasText: `127.0.0.1:${receivers.port}` })).toBeVisible();

  const panel = page.getByTestId("alerts-panel");
  await panel.getByLabel("Kind").selectOption("slack");
  await panel.getByLabel("Name").fill(NAME);
  await panel.getByLabel("URL").fill(receivers.url("/slack/T0/B0/sekrit-token"));
  await panel.getByRole("button", { name: "Add channel" }).click();
  const channel = panel.getByTestId("alert-channel-row").filter({ hasText: NAME });
  await expect(channel).toContainText(`127.0.0.1:${receivers.port}`);
  await expect(page.locator("body")).not.toContainText("sekrit-token");

  await panel.getByLabel("When").selectOption("loop_blocked");
  await panel.getByRole("checkbox", { name: NAME }).check();
  await panel.getByRole("button", { name: "Add rule" }).click();
  await expect(panel.getByTestId("alert-rule-row").filter({ hasText: "Loop blocked" }).filter({ hasText: NAME })).toBeVisible();

  await panel.getByRole("button", { name: `Send test alert to ${NAME}` }).click();
  const delivery = panel.getByTestId("alert-delivery-row").filter({ hasText: NAME }).filter({ hasText: "Idemgate test alert" });
  await expect(delivery.getByTestId("alert-delivery-status")).toHaveText("delivered", { timeout: 30_000 });
  await expect(delivery).toContainText("200");
  expect(receivers.slack.map((m) => m.text)).toEqual([expect.stringContaining("Idemgate test alert")]);
  await page.screenshot({ path: `${SHOTS}/settings-alerts.png`, fullPage: true });
  await expectNoSeriousA11yViolations(page);
});
