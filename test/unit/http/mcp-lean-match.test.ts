import { describe, expect, it } from "vitest";
import { matchMcpRoute } from "../../../lib/http/mcp-lean";

describe("matchMcpRoute (which MCP requests the lean path serves instead of Next.js)", () => {
  it("takes POST, GET and DELETE of /mcp/{one plain name}, with or without a query", () => {
    for (const method of ["POST", "GET", "DELETE"]) expect(matchMcpRoute(method, "/mcp/shop")).toEqual({ upstream: "shop" });
    expect(matchMcpRoute("POST", "/mcp/my_shop-2.v1?x=1")).toEqual({ upstream: "my_shop-2.v1" });
  });

  it("leaves to Next.js everything it would resolve differently: escapes, dot segments, a trailing slash, more segments, other methods", () => {
    for (const url of ["/mcp/sho%70", "/mcp/", "/mcp", "/mcp/shop/", "/mcp/shop/x", "/mcp/.", "/mcp/..", "/mcp/.hidden", "/mcpx/shop", "/api/mcp/shop", "/mcp/sh op"]) {
      expect(matchMcpRoute("POST", url), url).toBeNull();
    }
    for (const method of ["HEAD", "OPTIONS", "PUT", "PATCH", undefined]) expect(matchMcpRoute(method, "/mcp/shop"), String(method)).toBeNull();
    expect(matchMcpRoute("POST", undefined)).toBeNull();
  });
});
