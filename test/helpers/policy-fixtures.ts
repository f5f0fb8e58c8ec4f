import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { expect } from "vitest";
import type { BeginRequest, BeginResponse } from "../../lib/contract/v1";
import { parseDatabaseUrl } from "../../lib/store/connection/database-url";
import type { TestClient } from "./client";

export type Decision<K extends BeginResponse["decision"]> = Extract<BeginResponse, { decision: K }>;

/** Asserts the decision and narrows it, so a wrong decision fails with the whole answer shown. */
export function expectDecision<K extends BeginResponse["decision"]>(answer: BeginResponse, decision: K): Decision<K> {
  expect(answer, JSON.stringify(answer)).toMatchObject({ decision });
  return answer as Decision<K>;
}

export const uniqueRun = (label: string) => `run_${label}_${randomBytes(4).toString("hex")}`;
export const uniqueTool = (label: string) => `${label}_${randomBytes(3).toString("hex")}`;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** begin → execute → complete succeeded: one finished call. */
export async function runOnce(client: TestClient, request: BeginRequest, result: unknown = { ok: true }): Promise<Decision<"execute">> {
  const decision = expectDecision(await client.begin(request), "execute");
  await client.complete(decision.callId, { leaseToken: decision.leaseToken, outcome: "succeeded", result });
  return decision;
}

/** Every row of the given tables, as one JSON text: to prove a secret is stored nowhere. */
export async function dumpTables(databaseUrl: string, tables: string[]): Promise<string> {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.provider === "sqlite") {
    const db = new Database(target.file, { readonly: true });
    try {
      return JSON.stringify(tables.map((table) => db.prepare(`SELECT * FROM ${table}`).all()));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ host: target.host, port: target.port, user: target.user, database: target.database });
  await client.connect();
  try {
    const dumps = [];
    for (const table of tables) dumps.push((await client.query(`SELECT * FROM ${table}`)).rows);
    return JSON.stringify(dumps);
  } finally {
    await client.end();
  }
}
