// Preloaded into `prisma migrate deploy` (lib/store/connection/migrate.ts). Prisma 6.19's wasm
// schema engine leaves a 10 s timer running after its work is done, so the CLI sat idle for 10 s
// after every migration of a Postgres database: the first start of a server on a new database, and
// every test template. Long timers no longer keep the process alive on their own; a query still in
// flight does (its socket is referenced), and ensureMigrated checks every migration was applied.
const { setTimeout: schedule } = globalThis;
globalThis.setTimeout = function setTimeoutUnrefLong(callback, delay, ...args) {
  const timer = schedule(callback, delay, ...args);
  if (Number(delay) >= 5_000 && typeof timer?.unref === "function") timer.unref();
  return timer;
};
