import { describe, expect, it } from "vitest";
import { canonicalize } from "../../../lib/core/canonical";
import { argsFingerprinter, sameArgs } from "../../../lib/core/fingerprint";
import { CreateAlertChannelSchema } from "../../../lib/contract/alerts";
import { AddMemberSchema, CreateApiKeySchema } from "../../../lib/contract/operator";
import { BeginRequestSchema } from "../../../lib/contract/v1";
import { badIdField, foldFieldName, hasInvisibleCharacters, normalizeCallIds } from "../../../lib/core/identity";
import { REDACTED, redact } from "../../../lib/core/redact";

describe("redaction by name, however it is spelled", () => {
  it("masks case variants, compatibility forms and confusable letters of a rule's name, at any depth", () => {
    const args = { Password: "a", PASSWORD: "b", "p\u0430ssword": "c", "ｐａｓｓｗｏｒｄ": "d", nested: [{ pAsSwOrD: "e" }], user: "ada" };
    expect(redact(args, ["password"])).toEqual({
      Password: REDACTED,
      PASSWORD: REDACTED,
      "p\u0430ssword": REDACTED,
      "ｐａｓｓｗｏｒｄ": REDACTED,
      nested: [{ pAsSwOrD: REDACTED }],
      user: "ada",
    });
  });

  it("folds a rule written in capitals or with a look-alike letter the same way", () => {
    expect(redact({ pin: "1234" }, ["PIN"])).toEqual({ pin: REDACTED });
    expect(foldFieldName("p\u0430ssword")).toBe(foldFieldName("Password"));
  });

  it("ignoreFields match the same way, so a re-cased volatile id does not change the canonical args", () => {
    expect(canonicalize({ RequestId: "r-1", amount: 1 })).toBe(canonicalize({ amount: 1 }));
  });
});

describe("identifiers", () => {
  it("refuses control, zero-width, bidi and separator characters, and nothing else", () => {
    for (const bad of ["a\u200bb", "a\u200cb", "a\u200db", "\ufeffa", "a\u202eb", "a\u0000b", "a\nb", "a\u2028b"]) {
      expect(hasInvisibleCharacters(bad), JSON.stringify(bad)).toBe(true);
    }
    for (const good of ["charge_card", "café", "cafe\u0301", "訂單", "send email", "tool.v2-beta"]) {
      expect(hasInvisibleCharacters(good), good).toBe(false);
    }
  });

  it("puts every identifier of a call in NFC", () => {
    const nfd = "cafe\u0301";
    const call = normalizeCallIds({ tool: nfd, runId: nfd, stepId: nfd, scope: nfd, toolCallId: nfd, agentId: nfd, args: { x: nfd } });
    expect(call).toMatchObject({ tool: "café", runId: "café", stepId: "café", scope: "café", toolCallId: "café", agentId: "café" });
    expect(call.args).toEqual({ x: nfd });
  });

  it("the wire puts ids in NFC and refuses invisible characters in each of them; the service does the same for in-process callers", () => {
    const parsed = BeginRequestSchema.parse({ tool: "t", runId: "cafe\u0301", stepId: "cafe\u0301", scope: "cafe\u0301", toolCallId: "cafe\u0301", agentId: "cafe\u0301" });
    expect(parsed).toMatchObject({ runId: "café", stepId: "café", scope: "café", toolCallId: "café", agentId: "café" });
    for (const field of ["runId", "stepId", "scope", "toolCallId", "agentId"] as const) {
      const result = BeginRequestSchema.safeParse({ tool: "t", runId: "r", [field]: "a\u200bb" });
      expect(result.success, field).toBe(false);
      expect(result.error!.issues[0]!.path).toEqual([field]);
      expect(badIdField({ tool: "t", runId: "r", [field]: "a\u200bb" })).toEqual({ field, problem: "invisible" });
    }
    expect(badIdField({ tool: "t".repeat(201), runId: "r" })).toEqual({ field: "tool", problem: "length" });
    expect(badIdField({ tool: "café", runId: "r", stepId: null })).toBeNull();
  });

  it("names people read (API keys, alert channels, members) are NFC and refuse invisible characters", () => {
    expect(CreateApiKeySchema.parse({ name: " cafe\u0301 bot " }).name).toBe("café bot");
    expect(CreateApiKeySchema.safeParse({ name: "ci\u200bbot" }).success).toBe(false);
    expect(CreateAlertChannelSchema.safeParse({ kind: "slack", name: "on\u202ecall", url: "https://hooks.slack.com/services/x" }).success).toBe(false);
    expect(AddMemberSchema.safeParse({ email: "a@b.test", role: "viewer", name: "Ada\u0000" }).success).toBe(false);
  });
});

describe("keyed fingerprints", () => {
  it("differ per installation, match across the change through the unkeyed form, and tell other args apart", () => {
    const canonical = canonicalize({ amount: 42 });
    const a = argsFingerprinter("install-a")(canonical);
    const b = argsFingerprinter("install-b")(canonical);
    expect(a.keyed).not.toBe(b.keyed);
    expect(a.legacy).toBe(b.legacy);
    const call = { argsFingerprint: a.keyed, legacyArgsFingerprint: a.legacy };
    expect(sameArgs(a.keyed, call)).toBe(true);
    expect(sameArgs(a.legacy, call)).toBe(true);
    expect(sameArgs(argsFingerprinter("install-a")(canonicalize({ amount: 43 })).keyed, call)).toBe(false);
  });
});
