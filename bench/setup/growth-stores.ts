import { type GrowthDatabase, type GrowthSubject, growthSubject, prepareGrowthDatabase, seedGrowthDatabase } from "../cells/growth";
import { STATS_QUERIES, statsSubject } from "../cells/stats";
import { CLIENTS, NO_POSTGRES, type SubjectOrSkip, type WorkloadShape, skippedSubject } from "../cells/types";
import type { BuildContext } from "./subjects";

const fmt = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1_000 ? `${n / 1_000}k` : String(n));

/**
 * The growth stores (a baseline and a large one per provider) and the stats cells over the large
 * ledgers. The Postgres loads are sent first and run in the server while this process loads
 * SQLite, so the two million-row seeds overlap on the two cores.
 */
export async function growthAndStats(ctx: BuildContext, wantGrowth: boolean, wantStats: boolean, pgUp: boolean): Promise<{ growth: SubjectOrSkip[]; stats: SubjectOrSkip[] }> {
  const growth: SubjectOrSkip[] = [];
  const stats: SubjectOrSkip[] = [];
  if (!wantGrowth) return { growth, stats };
  const { options, databases, log } = ctx;
  const sizes = [options.growthRecords.small, options.growthRecords.large];
  const providers = [
    { provider: "sqlite" as const, name: "SQLite", run: true },
    ...(options.growthPostgres ? [{ provider: "postgres" as const, name: "Postgres", run: pgUp }] : []),
  ];
  const workloads: WorkloadShape[] = [
    ["begin-fresh", "begins", CLIENTS.single],
    ["begin-replay", "begins", CLIENTS.single],
    ["begin-replay-recent", "begins", CLIENTS.single],
  ];
  const idOf = (provider: string, size: number) => `growth.${provider}-${fmt(size)}`;
  const labelOf = (name: string, size: number) => `growth · ${name} · ${fmt(size)} records`;
  const statsLabel = (name: string) => `dashboard stats · ${name} · ${fmt(sizes[1]!)} events`;

  const prepared = new Map<string, GrowthDatabase>();
  const seeding: Promise<void>[] = [];
  const started = performance.now();
  // Postgres first: its loads run server-side while the SQLite ones run here.
  for (const { provider, name, run } of [...providers].reverse()) {
    if (!run) continue;
    for (const size of sizes) {
      const url = provider === "sqlite" ? await databases.sqlite(`growth_${fmt(size)}`) : await databases.postgres(`growth_${fmt(size)}`);
      const db = await prepareGrowthDatabase(url, options.sqliteSynchronous);
      prepared.set(idOf(provider, size), db);
      log(`growth: loading ${size.toLocaleString("en")} records and events into ${name}`);
      const { loading, done } = seedGrowthDatabase(db, size, size, ctx.now);
      seeding.push(done);
      await loading;
    }
  }
  await Promise.all(seeding);
  log(`growth: stores loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  for (const { provider, name, run } of providers) {
    for (const [i, size] of sizes.entries()) {
      const id = idOf(provider, size);
      const floorId = i === 1 ? idOf(provider, sizes[0]!) : undefined;
      if (!run) {
        growth.push(skippedSubject(id, "growth", labelOf(name, size), NO_POSTGRES, workloads, floorId));
        continue;
      }
      const subject: GrowthSubject = growthSubject(prepared.get(id)!, { id, label: labelOf(name, size), floorId, records: size });
      growth.push(subject);
      if (wantStats && i === 1) {
        stats.push(
          statsSubject({
            id: `stats.${provider}`,
            label: statsLabel(name),
            databaseUrl: prepared.get(id)!.databaseUrl,
            projectId: subject.projectId,
            now: ctx.now,
            ops: options.statsOps,
          }),
        );
      }
    }
    if (!run && wantStats) stats.push(skippedSubject(`stats.${provider}`, "stats", statsLabel(name), NO_POSTGRES, STATS_QUERIES.map((q) => [q, "queries", CLIENTS.single])));
  }
  return { growth, stats };
}
