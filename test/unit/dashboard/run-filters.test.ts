import { describe, expect, it } from "vitest";
import { runFiltersFromSearch, runFiltersToSearch } from "@/lib/dashboard/run-filters";

describe("run filters in the URL", () => {
  it("round-trip run id, agent, tool and state; drop what the API would refuse", () => {
    const filters = runFiltersFromSearch(new URLSearchParams("state=blocked&tool=fetch_page&runId=run_4&agentId=researcher&x=1"));
    expect(filters).toEqual({ runId: "run_4", agentId: "researcher", tool: "fetch_page", state: "blocked" });
    expect(runFiltersToSearch(filters).toString()).toBe("runId=run_4&agentId=researcher&tool=fetch_page&state=blocked");
    expect(runFiltersFromSearch(new URLSearchParams("state=weird&tool=%20%20"))).toEqual({});
  });
});
