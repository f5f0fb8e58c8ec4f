import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

export interface BareHttpServer {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts bench/setup/bare-http-server.mjs and waits for the port it reports. */
export async function startBareHttpServer(): Promise<BareHttpServer> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "bare-http-server.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`bare node:http server exited with ${code} before listening`)));
    createInterface({ input: child.stdout! }).once("line", (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
