import path from "node:path";

/**
 * The e2e servers, from what playwright.config.ts put into process.env in the runner (E2E_TMP, and
 * E2E_PORTS: one port per worker, then the screenshots' own): each its own SQLite database and data
 * dir, seeded with the demo project, its API key (demo-key.txt) and the demo admin.
 */
export interface E2eServer {
  port: number;
  baseURL: string;
  dataDir: string;
  databaseUrl: string;
}

function server(port: number, name: string): E2eServer {
  const tmp = process.env.E2E_TMP!;
  return { port, baseURL: `http://127.0.0.1:${port}`, dataDir: path.join(tmp, `data-${name}`), databaseUrl: `file:${path.join(tmp, `e2e-${name}.db`)}` };
}

export function e2eServers(): { workers: E2eServer[]; screens: E2eServer } {
  const ports = process.env.E2E_PORTS!.split(",").map(Number);
  return { workers: ports.slice(0, -1).map((port, i) => server(port, String(i))), screens: server(ports.at(-1)!, "screens") };
}
