import { describe, expect, it } from "vitest";
import { parseAllowPattern } from "../../../../lib/server/outbound/allow-pattern";
import { OutboundRefusedError } from "../../../../lib/server/outbound/outbound-refused";
import { checkOutboundAddress, checkOutboundUrl, compileAllowlist } from "../../../../lib/server/outbound/outbound-rules";

function refusal(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof OutboundRefusedError) return error.reason;
    throw error;
  }
}

describe("allowlist patterns", () => {
  it.each([
    ["api.stripe.com", { kind: "host", host: "api.stripe.com", wildcard: false, port: null }],
    ["API.Stripe.com.", { kind: "host", host: "api.stripe.com", wildcard: false, port: null }],
    ["*.example.com:8443", { kind: "host", host: "example.com", wildcard: true, port: 8443 }],
  ])("%s is a host pattern", (text, expected) => {
    expect(parseAllowPattern(text)).toEqual(expected);
  });

  it.each(["127.0.0.1", "127.0.0.1:4010", "10.0.0.0/8", "[::1]:80", "fd00:ec2::254", "169.254.169.254"])("%s is an address pattern", (text) => {
    expect(parseAllowPattern(text)?.kind).toBe("address");
  });

  it.each(["*", "*.com", "http://a.com", "a..b", "-a.com", "10.0.0.0/33", "a.com:0", "a.com:70000", "127.1", "a b.com", ""])("%s is refused", (text) => {
    expect(parseAllowPattern(text)).toBeNull();
  });
});

describe("outbound checks", () => {
  const allowlist = compileAllowlist(["api.example.com", "*.partner.io", "127.0.0.1:4010", "10.1.0.0/16", "metadata.google.internal"]);
  const url = (text: string) => refusal(() => checkOutboundUrl(allowlist, text));
  const address = (text: string, port = 443) => refusal(() => checkOutboundAddress(allowlist, text, port));

  it.each([
    ["https://api.example.com/v1/charges", null],
    ["https://API.EXAMPLE.COM./v1", null],
    ["https://eu.api.partner.io/x", null],
    ["https://partner.io/x", "not_allowlisted"],
    ["https://api.example.com.evil.net/", "not_allowlisted"],
    ["http://127.0.0.1:4010/", null],
    ["http://127.0.0.1:4011/", "not_allowlisted"],
    ["http://[::ffff:127.0.0.1]:4010/", null],
    ["http://10.1.2.3/", null],
    ["http://8.8.8.8/", "not_allowlisted"],
    ["http://169.254.169.254/latest/meta-data", "not_allowlisted"],
    ["http://[fd00:ec2::254]/", "not_allowlisted"],
    ["http://localhost:4010/", "not_allowlisted"],
    ["file:///etc/passwd", "scheme"],
    ["gopher://api.example.com/", "scheme"],
    ["https://user:pw@api.example.com/", "invalid_url"],
    ["/relative", "invalid_url"],
  ])("%s → %s", (text, expected) => {
    expect(url(text)).toBe(expected);
  });

  it("a metadata name needs an exact entry, never a wildcard", () => {
    expect(refusal(() => checkOutboundUrl(compileAllowlist(["*.google.internal"]), "http://metadata.google.internal/"))).toBe("metadata_host");
    expect(url("http://metadata.google.internal/computeMetadata/v1")).toBeNull();
  });

  it.each([
    ["93.184.216.34", null],
    ["2606:2800:220:1:248:1893:25c8:1946", null],
    ["127.0.0.1", "special_address"],
    ["::1", "special_address"],
    ["::ffff:169.254.169.254", "special_address"],
    ["169.254.169.254", "special_address"],
    ["fe80::1", "special_address"],
    ["fd00:ec2::254", "special_address"],
    ["100.100.100.200", "special_address"],
    ["192.168.1.1", "special_address"],
    ["10.1.200.4", null],
    ["0.0.0.0", "special_address"],
  ])("connecting to %s (resolved from an allowlisted name) → %s", (text, expected) => {
    expect(address(text)).toBe(expected);
  });

  it("an address entry is bound to its port", () => {
    expect(address("127.0.0.1", 4010)).toBeNull();
    expect(address("127.0.0.1", 4011)).toBe("special_address");
  });

  it("an explicit link-local entry admits the metadata address", () => {
    const explicit = compileAllowlist(["169.254.169.254"]);
    expect(refusal(() => checkOutboundUrl(explicit, "http://169.254.169.254/latest"))).toBeNull();
  });
});
