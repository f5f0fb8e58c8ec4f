import { existsSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { env } from "../../../lib/env";
import { buildServices } from "../../../lib/server/composition-root";

describe("the composition root", () => {
  it("builds each group once, on first use: collecting garbage opens no operator side and writes no auth secret", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "idemgate-root-"));
    const app = buildServices({ ...env(), DATABASE_URL: `file:${path.join(dir, "gate.db")}`, IDEMGATE_DATA_DIR: dir, BETTER_AUTH_SECRET: undefined });
    try {
      expect(app.insights.collector).toBe(app.insights.collector);
      expect(existsSync(path.join(dir, "auth-secret"))).toBe(false);

      // The gate asks the operators' resend services for bypasses: building it builds them, once.
      const gate = app.gate;
      expect(existsSync(path.join(dir, "auth-secret"))).toBe(true);
      expect(app.gate).toBe(gate);
      expect(app.operators).toBe(app.operators);
    } finally {
      await app.close();
    }
  });
});
