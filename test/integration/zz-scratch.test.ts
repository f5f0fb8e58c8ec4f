import { expect, it } from "vitest";
import { openDb } from "../../lib/store/prisma/client";
import { PROVIDERS, createTestDatabase } from "../helpers/databases";

it.each(PROVIDERS)("%s raw", async (provider) => {
  const db = await createTestDatabase(provider);
  const prisma = openDb({ databaseUrl: db.url });
  const entry = (id: string) => ({ id, projectId: "p", at: 5n, actorType: "system", actorId: null, actorLabel: null, action: "x", targetType: "t", targetId: "t", detail: null, ip: null, userAgent: null });
  await prisma.auditEntry.create({ data: entry("a1") });
  await prisma.auditEntry.create({ data: entry("a2") });
  const rows = await prisma.$queryRawUnsafe((provider === "sqlite" ? (s: string) => s.replace(/\$(\d+)/g, "?$1") : (s: string) => s)(`SELECT "id", "at", COUNT(*) AS n, SUM(CASE WHEN at = $2 THEN 1 ELSE 0 END) AS s, substr(action, 1, $3) AS pre FROM audit_log WHERE project_id = $1 GROUP BY id, at, action ORDER BY id LIMIT $4`), "p", 5, 1, 10);
  console.log(provider, rows);
  await prisma.$disconnect();
  await db.drop();
  expect(rows).toHaveLength(2);
});
