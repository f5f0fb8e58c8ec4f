import AxeBuilder from "@axe-core/playwright";
import { type Browser, type Page, expect } from "@playwright/test";

export const SHOTS = "test-results/screenshots";

/** The demo admin the e2e server seeds on first start (IDEMGATE_SEED_DEMO); admin of every project. */
export const ADMIN = { email: "admin@idemgate.local", password: "idemgate-demo-admin" };

export async function expectNoSeriousA11yViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

/** A page in a context of its own, so each person's session cookie stays theirs; close it with `page.context().close()`. */
export async function signIn(browser: Browser, who: { email: string; password: string }): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  // Signed in, the operator lands on their project's overview (no interstitial). A generous budget:
  // a loaded machine took over 15 s for the first sign-in's redirect.
  await expect(page).toHaveURL(/\/projects\/[^/]+$/, { timeout: 90_000 });
  return page;
}
