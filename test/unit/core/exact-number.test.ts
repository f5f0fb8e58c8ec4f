import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { canonicalize, fingerprintArgs } from "../../../lib/core/canonical";
import { canonicalNumber, exactDecimal } from "../../../lib/core/exact-number";
import { parseExactJson } from "../../../lib/sdk/exact-json";
import { builtinPolicyFor } from "../../../lib/core/policy";
import { bodyValue } from "../../../lib/sdk/http/fetch-reply";
import { payloadArgs, toolName } from "../../../lib/sdk/http/idempotency-core";

/** A number by value: sign, significant digits (no leading or trailing zero), exponent; or zero. */
type Num = { num: true; negative: boolean; digits: string; exponent: number } | { num: true; zero: true };
type Tree = null | boolean | string | Num | Tree[] | { [key: string]: Tree };

const significand = fc
  .tuple(fc.integer({ min: 1, max: 9 }), fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: 28 }), fc.integer({ min: 1, max: 9 }))
  .map(([first, middle, last]) => (middle.length === 0 && first === last ? `${first}` : `${first}${middle}${last}`));
const num: fc.Arbitrary<Num> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Num>({ num: true, zero: true }) },
  { weight: 9, arbitrary: fc.record({ num: fc.constant(true as const), negative: fc.boolean(), digits: significand, exponent: fc.integer({ min: -40, max: 40 }) }) },
);
const leaf: fc.Arbitrary<Tree> = fc.oneof(fc.constant(null), fc.boolean(), fc.string({ maxLength: 6 }), num, num);
const key = fc.string({ minLength: 1, maxLength: 4 }).filter((k) => k !== "__proto__");
const tree: fc.Arbitrary<Tree> = fc.letrec<{ t: Tree }>((self) => ({
  t: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, fc.array(self("t"), { maxLength: 3 }), fc.dictionary(key, self("t"), { maxKeys: 3 })),
})).t;

const isNum = (value: unknown): value is Num => typeof value === "object" && value !== null && (value as Num).num === true;

/** One spelling of a number's value: plain, with padding zeros, or in exponent form, chosen by `variant`. */
function spell(n: Num, variant: number): string {
  if ("zero" in n) return ["0", "-0", "0.000", "0e5"][variant % 4]!;
  const sign = n.negative ? "-" : "";
  const padded = n.digits + "0".repeat(variant % 3);
  const exponent = n.exponent - (variant % 3);
  if (variant % 2 === 0) return `${sign}${padded}e${exponent}`;
  // Decimal point form: digits × 10^exponent written out.
  if (exponent >= 0) return `${sign}${padded}${"0".repeat(exponent)}${variant % 4 === 1 ? ".00" : ""}`;
  const places = -exponent;
  const body = padded.padStart(places + 1, "0");
  return `${sign}${body.slice(0, body.length - places)}.${body.slice(body.length - places)}`;
}

function render(value: Tree, variant: number): string {
  if (isNum(value)) return spell(value, variant);
  if (Array.isArray(value)) return `[${value.map((item) => render(item, variant)).join(",")}]`;
  if (value !== null && typeof value === "object") return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${render(v, variant)}`).join(",")}}`;
  return JSON.stringify(value);
}

function same(a: Tree, b: Tree): boolean {
  if (isNum(a) || isNum(b)) return isNum(a) && isNum(b) && JSON.stringify(a) === JSON.stringify(b);
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]!));
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return JSON.stringify(ka) === JSON.stringify(kb) && ka.every((k) => same(a[k]!, b[k]!));
  }
  return a === b;
}

/** The fingerprint of a JSON payload as written, with no field ignored. */
const fingerprint = (text: string) => fingerprintArgs({ payload: parseExactJson(text) }, []);

describe("exact numbers in fingerprints (issue #35 §2)", () => {
  it("two payloads that differ in any value, at any depth (integers past 2^53, decimals past a double's precision), never share a fingerprint; equal ones always do", () => {
    fc.assert(
      fc.property(tree, tree, fc.nat(11), fc.nat(11), (a, b, va, vb) => {
        expect(fingerprint(render(a, va)) === fingerprint(render(b, vb))).toBe(same(a, b));
      }),
      { numRuns: 2_000 },
    );
  });

  it("an HTTP body as the middleware and /gw fingerprint it (the route's built-in policy): fields agents' arguments ignore (timestamp, requestId, trace_id) count like any other, and an object shaped like one of the gate's stand-ins is the client's own", () => {
    const route = toolName("POST", "/v1/refunds");
    const ignored = builtinPolicyFor(route).ignoreFields;
    const httpKey = fc.oneof(key, fc.constantFrom("timestamp", "requestId", "request_id", "trace_id", "traceId", "idempotency_key", "idemgate/number", "idemgate/sha256", "idemgate/literal"));
    // Strings a stand-in would read as a number or a digest.
    const httpLeaf = fc.oneof(leaf, fc.constantFrom("5", "5.0", "9007199254740993", "0".repeat(64)));
    const body: fc.Arbitrary<Tree> = fc.letrec<{ t: Tree }>((self) => ({
      t: fc.oneof({ depthSize: "small", withCrossShrink: true }, httpLeaf, fc.array(self("t"), { maxLength: 3 }), fc.dictionary(httpKey, self("t"), { maxKeys: 3 })),
    })).t;
    const fingerprintBody = (text: string) => fingerprintArgs(payloadArgs("/v1/refunds", bodyValue(new TextEncoder().encode(text), "application/json")), ignored);
    fc.assert(
      fc.property(body, body, fc.nat(11), fc.nat(11), (a, b, va, vb) => {
        expect(fingerprintBody(render(a, va)) === fingerprintBody(render(b, vb))).toBe(same(a, b));
      }),
      { numRuns: 2_000 },
    );
    // The examples: a client's stand-in shaped object is not the number or digest it looks like.
    expect(fingerprintBody('{"a":{"idemgate/number":"5"}}')).not.toBe(fingerprintBody('{"a":5}'));
    expect(fingerprintBody('{"a":{"idemgate/number":"5"}}')).not.toBe(fingerprintBody('{"a":{"idemgate/number":"5.0"}}'));
    expect(fingerprintBody(`{"a":{"idemgate/sha256":"${"0".repeat(64)}"}}`)).not.toBe(fingerprintBody(`{"a":"${"0".repeat(64)}"}`));
    expect(fingerprintBody('{"a":{"idemgate/literal":{"x":1}}}')).not.toBe(fingerprintBody('{"a":{"x":1}}'));
  });

  it("every spelling of one value (1, 1.0, 1e0, 10e-1) fingerprints as one", () => {
    fc.assert(
      fc.property(tree, fc.nat(11), fc.nat(11), (value, va, vb) => {
        expect(fingerprint(render(value, va))).toBe(fingerprint(render(value, vb)));
      }),
      { numRuns: 1_000 },
    );
  });

  it("a payload a double holds fingerprints as before (records of older versions keep matching)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(canonicalize(parseExactJson(text), [])).toBe(canonicalize(JSON.parse(text), []));
      }),
      { numRuns: 1_000 },
    );
  });

  it("the issue's examples", () => {
    expect(fingerprint('{"account":9007199254740993}')).not.toBe(fingerprint('{"account":9007199254740992}'));
    expect(fingerprint('{"amount":0.10000000000000001}')).not.toBe(fingerprint('{"amount":0.1}'));
    expect(fingerprint('{"amount":1.0}')).toBe(fingerprint('{"amount":1}'));
    expect(fingerprint('{"n":1e400}')).not.toBe(fingerprint('{"n":1e401}'));
    expect(canonicalNumber("9007199254740993")).toBe("9007199254740993e0");
    expect(canonicalNumber("1.50")).toBe("1.5");
    expect(exactDecimal("-0.0")).toBe("0");
    // A BigInt (the SDK in process) is its exact integer, and a small one is the number it equals.
    expect(canonicalize({ a: 9007199254740993n }, [])).not.toBe(canonicalize({ a: 9007199254740992n }, []));
    expect(canonicalize({ a: 5n }, [])).toBe(canonicalize({ a: 5 }, []));
  });
});
