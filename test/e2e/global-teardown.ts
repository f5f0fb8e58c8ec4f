// Removes the run's temp database and data dir (made in playwright.config.ts).
import { rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export default function globalTeardown() {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) return;
  const tmp = path.dirname(dataDir);
  if (path.dirname(tmp) === os.tmpdir() && path.basename(tmp).startsWith("idemgate-e2e-")) rmSync(tmp, { recursive: true, force: true });
}
