import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createClient } from "@redis/client";

export interface DurableRedis {
  url: string;
  stop(): Promise<void>;
}

/** A free loopback port, asked of the kernel rather than guessed. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A Redis of the bench's own with the durability SQLite FULL gives: every write appended and
 * fsynced before the reply (`appendonly yes`, `appendfsync always`). Its own port and temp dir,
 * stopped and removed after the run, so the machine's shared Redis is never reconfigured.
 */
export async function startDurableRedis(binary = process.env.BENCH_REDIS_SERVER ?? "redis-server", budgetMs = 20_000): Promise<DurableRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "idemgate-bench-redis-"));
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no", "--logfile", path.join(dir, "redis.log")],
    { stdio: "ignore" },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const failed = new Promise<never>((_, reject) => child.once("error", (error) => reject(error)));
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + budgetMs;
  try {
    for (;;) {
      const client = createClient({ url, socket: { connectTimeout: 1_000, reconnectStrategy: false } });
      client.on("error", () => undefined);
      try {
        await Promise.race([client.connect(), failed]);
        const aof = await client.configGet("appendfsync");
        await client.close();
        if (aof.appendfsync !== "always") throw new Error(`durable Redis answered appendfsync=${aof.appendfsync}`);
        return { url, stop };
      } catch (error) {
        if (child.exitCode !== null || Date.now() > deadline || (error as NodeJS.ErrnoException).code === "ENOENT") throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
}
