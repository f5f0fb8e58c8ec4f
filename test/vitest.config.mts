import path from "node:path";
import { defineConfig } from "vitest/config";
import LongestFirst from "./longest-first.mts";

const root = path.resolve(import.meta.dirname, "..");
const alias = { "@": root };
const INTEGRATION_WORKERS = 3;

export default defineConfig({
  root,
  resolve: { alias },
  test: {
    // Within each project, the slowest files start first (test/longest-first.mts).
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          root,
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
          sequence: { groupOrder: 0 },
          // Some unit suites run the engine on a real SQLite file; a busy 2-core machine needs headroom.
          testTimeout: 60_000,
          // Vitest's default on 2 cores is one worker (cores − 1), which left a core idle: many of
          // these files wait on timers (heartbeats, backoffs). Three at a time: 40–50 s instead of
          // 84 s, the same 522 tests (three runs with three workers against one with one).
          maxWorkers: 3,
          fileParallelism: true,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          sequence: { groupOrder: 1 },
          root,
          include: ["test/integration/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/helpers/global-setup.ts"],
          // Ceilings, not expectations: waits inside tests are on conditions (up to 60 s each), and a
          // shared 2-core machine running other suites beside this one can be several times slower.
          testTimeout: 240_000,
          hookTimeout: 240_000,
          // Each file starts its own servers, and much of a file's time is waiting on them (leases,
          // timeouts, deliveries): three files at a time finish this group in 313 s on 2 cores, two
          // in 370 s (measured with nothing else running; the browser suite runs after vitest).
          maxWorkers: INTEGRATION_WORKERS,
          fileParallelism: true,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "chaos",
          // Beside the integration files, not after them: its scenarios hold exactly one effect per
          // request beside two CPU hogs (npm run chaos -- --under-load), and run last and alone they
          // added 77 s of wall to CI (#36), mostly waits on slow tools and lapsed leases.
          sequence: { groupOrder: 1 },
          // Projects of one group share its workers (vitest requires the same maxWorkers): the chaos
          // files queue with the integration files. `npm run chaos` runs them one at a time, alone.
          maxWorkers: process.env.IDEMGATE_CHAOS_ALONE === "1" ? 1 : INTEGRATION_WORKERS,
          fileParallelism: true,
          root,
          include: ["test/chaos/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/helpers/global-setup.ts"],
          testTimeout: 1_200_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
