import { randomBytes } from "node:crypto";
import { type Page, expect, test } from "@playwright/test";
import { PreviewSchema } from "@/lib/contract/previews";
import { ToolError, createGate } from "@/lib/sdk";
import { createTestProject } from "../helpers/fixtures";
import { type Agent, agentClient } from "./agent";
import { ADMIN, SHOTS, expectNoSeriousA11yViolations, signIn } from "./dashboard-helpers";

test.describe.configure({ mode: "serial" });

/**
 * Issue #20 in the dashboard. (a) An operator aborts an order run from its page; its last undo
 * (release the inventory) fails permanently: the overview's "runs needing attention" lists it, the run page shows each step's
 * compensation, and an operator resolves the failed one by hand with a note, which closes the run
 * as compensated with an audit entry. (b) A destructive tool under `preview: approve`: nothing runs
 * before approval, the inbox shows the preview (summary, affected resources, exact args), approval
 * releases the token, the previewed args execute once and changed args are refused.
 */
const tag = randomBytes(3).toString("hex");
const SAGA_RUN = `run_order_${tag}`;
const DELETE = `delete_repo_${tag}`;
let PROJECT = "";
let projectId = "";
let apiKey = "";
let page: Page;
let agent: Agent;
let baseUrl = "";

test.beforeAll(async ({ browser, baseURL }) => {
  baseUrl = baseURL!;
  const project = await createTestProject(process.env.E2E_DATABASE_URL!, `sagas e2e ${tag}`);
  ({ projectId, apiKey } = project);
  PROJECT = `/projects/${projectId}`;
  agent = agentClient(baseUrl, apiKey);
  page = await signIn(browser, ADMIN);
});

test.afterAll(async () => {
  await page?.context().close();
});

test("a compensation failing permanently is in the operators' queue; resolved by hand in the UI, the run is compensated and audited", async () => {
  const gate = createGate({ baseUrl, apiKey, toolRetry: false });
  await gate.run({ runId: SAGA_RUN }, async () => {
    await gate.call({ tool: "reserve_inventory", step: "reserve", args: { sku: "sku-1" } }, () => ({ reservationId: "res_1" }), {
      compensate: (r) => ({ tool: "release_inventory", args: r }),
    });
    await gate.call({ tool: "charge_card", step: "charge", args: { amount: 4200 } }, () => ({ chargeId: "ch_1" }), {
      compensate: (r) => ({ tool: "refund_charge", args: r }),
    });
  });
  let refunds = 0;
  const compensators = {
    refund_charge: () => ({ refunded: ++refunds }),
    release_inventory: () => {
      throw new ToolError("warehouse API: reservation res_1 is locked", { retryable: false });
    },
  };
  // An operator aborts the run from its page (a reason is required); its plan starts.
  await page.goto(`${PROJECT}/runs/${SAGA_RUN}`);
  const panel = page.getByTestId("saga-panel");
  await expect(panel.getByTestId("saga-state")).toHaveText("running");
  await panel.getByText("Abort this run").click();
  await panel.getByLabel("Reason (required, kept in the audit log)").fill("confirmation email failed permanently");
  await panel.getByRole("button", { name: "Abort run" }).click();
  await expect(panel.getByTestId("saga-state")).toHaveText("compensating");
  await expect(panel.getByTestId("saga-abort")).toContainText("confirmation email failed permanently");

  // The agent's runner undoes the charge, then the release fails permanently.
  const stopped = await gate.compensate(SAGA_RUN, { compensators });
  expect(stopped.state).toBe("compensation_failed");
  expect(refunds).toBe(1);

  // The overview lists the run among those needing attention, with the undo that stopped it.
  await page.goto(PROJECT);
  const row = page.getByTestId("attention-run").filter({ hasText: SAGA_RUN });
  await expect(row).toBeVisible();
  await expect(row).toContainText("compensation failed");
  await expect(row).toContainText("release_inventory");
  await expectNoSeriousA11yViolations(page);
  await row.getByRole("link", { name: SAGA_RUN }).click();

  // The run page: each step's compensation, the failed one with its error.
  await expect(page).toHaveURL(new RegExp(`/runs/${SAGA_RUN}$`));
  await expect(panel.getByTestId("saga-state")).toHaveText("compensation failed");
  await expect(panel.getByTestId("saga-step")).toHaveCount(2);
  await expect(panel.locator('[data-testid="saga-step"][data-status="compensated"]')).toContainText("refund_charge");
  await expect(panel.locator('[data-testid="saga-step"][data-status="failed"]')).toContainText("reservation res_1 is locked");
  await expect(page.getByTestId("run-steps")).toContainText("refund_charge: undo compensated");
  await expectNoSeriousA11yViolations(page);
  await page.screenshot({ path: `${SHOTS}/run-saga-failed.png`, fullPage: true });

  // A note is required; then "resolved by hand" closes the run.
  const failed = panel.getByTestId("saga-failed-step");
  await failed.getByRole("button", { name: "Mark resolved by hand" }).click();
  await expect(failed.getByText("Write a note for the audit log.")).toBeVisible();
  await failed.getByLabel("Note on resolving release_inventory by hand (required, audited)").fill("released res_1 in the warehouse console");
  await failed.getByRole("button", { name: "Mark resolved by hand" }).click();
  await expect(panel.getByTestId("saga-state")).toHaveText("compensated");
  await expect(panel.locator('[data-testid="saga-step"][data-status="resolved"]')).toContainText("resolved by hand");
  await page.screenshot({ path: `${SHOTS}/run-saga-resolved.png`, fullPage: true });

  // The runs list says so, the overview no longer lists it, and the audit log has the entry.
  await page.goto(`${PROJECT}/runs?runId=${SAGA_RUN}`);
  await expect(page.getByTestId("run-row").filter({ hasText: SAGA_RUN }).getByTestId("run-saga-state")).toHaveText("compensated");
  await page.goto(PROJECT);
  await expect(page.getByTestId("attention")).toBeVisible();
  await expect(page.getByTestId("attention-run").filter({ hasText: SAGA_RUN })).toHaveCount(0);
  await page.goto(`${PROJECT}/audit`);
  const audit = page.locator('[data-testid="audit-row"][data-action="compensation.resolved"]');
  await expect(audit).toHaveCount(1);
  await expect(audit).toContainText("released res_1 in the warehouse console");
  await expect(page.locator('[data-testid="audit-row"][data-action="run.aborted"]').filter({ hasText: SAGA_RUN })).toHaveCount(1);
  expect(refunds).toBe(1);
});

test("a destructive tool under preview: approve — the inbox shows the preview and approval releases the token for exactly those args", async () => {
  const put = await page.request.put(`/api/v1/admin/projects/${projectId}/policies/${DELETE}`, {
    data: { policy: { preview: "approve" }, reason: "e2e: a human approves deletions" },
    headers: { origin: baseUrl },
  });
  expect(put.status()).toBe(200);
  const runId = `run_cleanup_${tag}`;
  const request = { tool: DELETE, runId, stepId: "delete", args: { repo: "acme/legacy" } };
  let deletions = 0;

  // No execution before approval: the begin asks for a preview, the preview waits for a human.
  expect((await agent.begin(request)).decision).toBe("preview_required");
  const posted = await fetch(`${baseUrl}/api/v1/calls/preview`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ ...request, preview: { summary: "deletes acme/legacy and its 412 issues", affected: ["github:acme/legacy", "412 issues"] } }),
  });
  const preview = PreviewSchema.parse(await posted.json());
  expect(preview).toMatchObject({ status: "pending" });
  expect(preview.previewToken).toBeUndefined();
  const read = async () =>
    PreviewSchema.parse(await (await fetch(`${baseUrl}/api/v1/previews/${preview.previewId}`, { headers: { authorization: `Bearer ${apiKey}` } })).json());

  await page.goto(`${PROJECT}/approvals`);
  const card = page.locator(`[data-testid="preview-request"][data-preview-id="${preview.previewId}"]`);
  await expect(card).toBeVisible();
  await expect(card.getByTestId("preview-summary")).toHaveText("deletes acme/legacy and its 412 issues");
  await expect(card.getByTestId("preview-affected")).toContainText("github:acme/legacy");
  await expect(card.getByTestId("preview-args")).toContainText('"repo": "acme/legacy"');
  await expectNoSeriousA11yViolations(page);
  await page.screenshot({ path: `${SHOTS}/approvals-preview.png`, fullPage: true });
  expect((await read()).previewToken).toBeUndefined();

  await card.getByLabel(`Note approving ${DELETE} (required, audited)`).fill("archived for a year, fine to delete");
  await card.getByRole("button", { name: "Approve preview" }).click();
  await expect(card.locator(".badge")).toHaveText("approved");

  // Approval released the token: the previewed args execute once; a duplicate replays.
  const approved = await read();
  expect(approved.status).toBe("approved");
  const token = approved.previewToken!;
  const changed = await fetch(`${baseUrl}/api/v1/calls/begin`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ ...request, args: { repo: "acme/core" }, previewToken: token }),
  });
  expect(changed.status).toBe(403);
  expect(((await changed.json()) as { error: { code: string } }).error.code).toBe("preview_token_mismatch");
  const run = await agent.begin({ ...request, previewToken: token });
  expect(run.decision).toBe("execute");
  if (run.decision === "execute") {
    deletions++;
    await agent.complete(run.callId, run.leaseToken, { deleted: "acme/legacy" });
  }
  expect((await agent.begin(request)).decision).toBe("replay");
  expect(deletions).toBe(1);
});
