import { describe, expect, it } from "vitest";
import { activeFilterCount, filtersFromSearch, filtersToSearch, fromUtcInput, toUtcInput } from "@/lib/dashboard/call-filters";

const parse = (query: string) => filtersFromSearch(new URLSearchParams(query));

describe("calls page filters in the URL", () => {
  it("read every filter, trimmed, with times normalised to UTC ISO", () => {
    expect(parse("tool=+send_email+&status=failed&decision=replay&runId=run_1&agentId=sub&key=ab12&from=2026-01-01T10:00:00%2B02:00&to=2026-01-02T00:00:00Z&limit=20")).toEqual({
      tool: "send_email",
      status: "failed",
      decision: "replay",
      runId: "run_1",
      agentId: "sub",
      key: "ab12",
      from: "2026-01-01T08:00:00.000Z",
      to: "2026-01-02T00:00:00.000Z",
      limit: 20,
    });
  });

  it("read a chart bar's filter: several decisions and the window they were taken in", () => {
    expect(parse("decision=replay,in_progress,refused,replay&decidedFrom=2026-01-01T10:00:00Z&decidedTo=2026-01-01T10:01:00Z")).toEqual({
      decision: "replay,in_progress,refused",
      decidedFrom: "2026-01-01T10:00:00.000Z",
      decidedTo: "2026-01-01T10:01:00.000Z",
    });
    expect(parse("decision=replay,nonsense")).toEqual({});
  });

  it("drop what the API would refuse instead of failing the page", () => {
    expect(parse("status=weird&decision=maybe&from=yesterday&limit=500&tool=")).toEqual({});
    expect(parse("limit=0")).toEqual({});
    // A `to` not after `from` is dropped, `from` kept.
    expect(parse("from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z")).toEqual({ from: "2026-01-02T00:00:00.000Z" });
  });

  it("write one URL per set of filters: fixed order, empty fields left out, and it parses back", () => {
    const filters = { key: "ab", tool: "t", limit: 5, decision: "refused" as const, runId: "" };
    const search = filtersToSearch(filters).toString();
    expect(search).toBe("tool=t&decision=refused&key=ab&limit=5");
    expect(parse(search)).toEqual({ tool: "t", decision: "refused", key: "ab", limit: 5 });
  });

  it("count the filters that narrow the list, not the page size", () => {
    expect(activeFilterCount({ limit: 10 })).toBe(0);
    expect(activeFilterCount({ tool: "t", from: "2026-01-01T00:00:00.000Z", limit: 10 })).toBe(2);
  });

  it("read datetime-local values as UTC and back", () => {
    expect(fromUtcInput("2026-03-04T05:06")).toBe("2026-03-04T05:06:00.000Z");
    expect(toUtcInput("2026-03-04T05:06:00.000Z")).toBe("2026-03-04T05:06");
    expect(fromUtcInput("")).toBeUndefined();
    expect(fromUtcInput("2026-13-40T99:99")).toBeUndefined();
    expect(toUtcInput(undefined)).toBe("");
  });
});

describe("the calls search in the URL (issue #38 §2)", () => {
  it("reads `q` trimmed and bounded to the API's 200 characters, writes it first, counts it as a filter; the sort is not a filter", () => {
    expect(parse("q=+ord_42+&tool=refund&sort=-attempts")).toEqual({ q: "ord_42", tool: "refund" });
    expect(parse(`q=${"x".repeat(250)}`).q).toHaveLength(200);
    expect(parse("q=+++")).toEqual({});
    expect(filtersToSearch({ tool: "refund", q: "ord_42" }).toString()).toBe("q=ord_42&tool=refund");
    expect(activeFilterCount({ q: "ord_42" })).toBe(1);
  });
});
