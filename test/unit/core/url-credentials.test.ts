import { describe, expect, it } from "vitest";
import { channelTargetShown, hasUserinfo, originOf, redactAuditDetail, stripUserinfo } from "../../../lib/core/url-credentials";

describe("credentials inside URLs", () => {
  it("sees userinfo as the URL parser does: a user alone counts, an empty one does not", () => {
    expect(hasUserinfo("https://user:pw@host.example/x")).toBe(true);
    expect(hasUserinfo("https://token@host.example")).toBe(true);
    expect(hasUserinfo("https://:pw@host.example")).toBe(true);
    expect(hasUserinfo("https://@host.example")).toBe(false);
    expect(hasUserinfo("https://host.example/a@b")).toBe(false);
    expect(hasUserinfo("not a url")).toBe(false);
  });

  it("strips userinfo from every URL in a text, up to the last @ before the path, and keeps the rest as written", () => {
    expect(stripUserinfo("https://u:p@host.example/mcp?x=1")).toBe("https://host.example/mcp?x=1");
    expect(stripUserinfo("https://a@b:c@host.example/")).toBe("https://host.example/");
    expect(stripUserinfo("moved from http://u:p@a.example to https://b.example/x@y")).toBe("moved from http://a.example to https://b.example/x@y");
    expect(stripUserinfo("mail me@example.com")).toBe("mail me@example.com");
  });

  it("shows of a URL only its scheme and host; of an old channel display only its host", () => {
    expect(originOf("https://discord.com/api/webhooks/1/secret-token")).toBe("https://discord.com");
    expect(originOf("http://127.0.0.1:8080/hooks")).toBe("http://127.0.0.1:8080");
    expect(channelTargetShown("hooks.example.com/T000/secret")).toBe("hooks.example.com");
    expect(channelTargetShown("hooks.example.com")).toBe("hooks.example.com");
    expect(channelTargetShown("https://hooks.example.com (fingerprint 0123456789ab)")).toBe("https://hooks.example.com (fingerprint 0123456789ab)");
  });

  it("redacts an audit detail at any depth, and an alert channel's target to its host", () => {
    expect(redactAuditDetail("upstream.created", { url: "https://u:p@x.example/mcp", nested: [{ note: "http://t@y.example" }], n: 1 })).toEqual({
      url: "https://x.example/mcp",
      nested: [{ note: "http://y.example" }],
      n: 1,
    });
    expect(redactAuditDetail("alert_channel.added", { name: "hook", target: "hooks.example.com/secret-path" })).toEqual({ name: "hook", target: "hooks.example.com" });
    expect(redactAuditDetail("policy.updated", null)).toBeNull();
  });
});
