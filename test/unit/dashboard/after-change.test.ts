import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterEach, describe, expect, it } from "vitest";
import { refetchAfterChange, showAfterChange } from "@/lib/dashboard/queries/after-change";

/**
 * A change made while a query's fetch is in flight: that fetch was answered from before the change,
 * and must not be what the dashboard shows afterwards. The server reads its list when asked and
 * answers a turn later, so a change made in between arrives before that older answer, as on a slow
 * network.
 */
function slowServer() {
  const state = { entries: ["a"] };
  let fetches = 0;
  return {
    state,
    get fetches() {
      return fetches;
    },
    fetch: () => {
      fetches++;
      const answer = { entries: [...state.entries] };
      return new Promise<{ entries: string[] }>((resolve) => setImmediate(() => resolve(answer)));
    },
  };
}

const KEY = ["outbound-allowlist", { projectId: "p" }];
let client: QueryClient;
let stop = () => {};

afterEach(() => {
  stop();
  client.clear();
});

function watched(server: ReturnType<typeof slowServer>) {
  client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const observer = new QueryObserver(client, { queryKey: KEY, queryFn: server.fetch });
  stop = observer.subscribe(() => {});
  return observer;
}

async function settled(observer: { getCurrentResult(): { fetchStatus: string } }) {
  for (let i = 0; i < 100 && observer.getCurrentResult().fetchStatus !== "idle"; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(observer.getCurrentResult().fetchStatus).toBe("idle");
}

describe("refetchAfterChange", () => {
  it("a change made during the first load shows up: the load is asked again after the change", async () => {
    const server = slowServer();
    const observer = watched(server);
    expect(server.fetches).toBe(1); // the first load, in flight
    server.state.entries.push("b"); // the change, answered before the first load is
    await refetchAfterChange(client, ["outbound-allowlist"]);
    await settled(observer);
    expect(client.getQueryData(KEY)).toEqual({ entries: ["a", "b"] });
    expect(server.fetches).toBe(2);
  });

  it("a change made while a query with data refetches shows up too", async () => {
    const server = slowServer();
    const observer = watched(server);
    await settled(observer);
    void observer.refetch(); // a poll, in flight
    server.state.entries.push("c");
    await refetchAfterChange(client, ["outbound-allowlist"]);
    await settled(observer);
    expect(client.getQueryData(KEY)).toEqual({ entries: ["a", "c"] });
  });
});

describe("showAfterChange", () => {
  it("the change's own answer is not replaced by a fetch asked before it", async () => {
    const server = slowServer();
    const observer = watched(server);
    await settled(observer);
    void observer.refetch(); // a poll, in flight, answered from before the change
    server.state.entries.push("d");
    await showAfterChange(client, KEY, { entries: ["a", "d"] });
    await settled(observer);
    await new Promise((resolve) => setImmediate(resolve));
    expect(client.getQueryData(KEY)).toEqual({ entries: ["a", "d"] });
  });
});
