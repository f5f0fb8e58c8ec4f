import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { canonicalize, DEFAULT_IGNORE_FIELDS, fingerprintArgs, sha256Hex } from "../../../lib/core/canonical";
import { foldFieldName } from "../../../lib/core/identity";

// ---------------------------------------------------------------------------------------------
// Generators and reference helpers
// ---------------------------------------------------------------------------------------------

type Tree = null | boolean | number | string | Tree[] | { [key: string]: Tree };
type Path = (string | number)[];

const DEFAULT_IGNORED = new Set(DEFAULT_IGNORE_FIELDS);
/** "__proto__" is excluded here: it is covered by its own (failing) test below. */
const plainKey = fc.string({ minLength: 1, maxLength: 6 }).filter((k) => k !== "__proto__" && !DEFAULT_IGNORED.has(k));
const asciiLeaf: fc.Arbitrary<Tree> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
  fc.string({ maxLength: 8 }),
);

function tree(key: fc.Arbitrary<string>, leaf: fc.Arbitrary<Tree>, depth: number): fc.Arbitrary<Tree> {
  if (depth === 0) return leaf;
  const inner = tree(key, leaf, depth - 1);
  return fc.oneof(leaf, fc.array(inner, { maxLength: 3 }), fc.dictionary(key, inner, { maxKeys: 4 }));
}
/** Top-level args are always an object, as on the wire. */
function argsArb(key: fc.Arbitrary<string> = plainKey, leaf: fc.Arbitrary<Tree> = asciiLeaf) {
  return fc.dictionary(key, tree(key, leaf, 3), { minKeys: 1, maxKeys: 5 }) as fc.Arbitrary<{ [k: string]: Tree }>;
}

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isObj = (v: Tree): v is { [key: string]: Tree } => v !== null && typeof v === "object" && !Array.isArray(v);

/** Rebuild every object with its keys inserted in a random order. */
function shuffleDeep(v: Tree, next: () => number): Tree {
  if (Array.isArray(v)) return v.map((x) => shuffleDeep(x, next));
  if (!isObj(v)) return v;
  const keys = Object.keys(v);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [keys[i], keys[j]] = [keys[j]!, keys[i]!];
  }
  const out: { [key: string]: Tree } = {};
  for (const k of keys) out[k] = shuffleDeep(v[k]!, next);
  return out;
}

/** Reference: the same tree without the ignored keys, at every depth. */
function strip(v: Tree, ignore: readonly string[]): Tree {
  if (Array.isArray(v)) return v.map((x) => strip(x, ignore));
  if (!isObj(v)) return v;
  const out: { [key: string]: Tree } = {};
  // Rules match names as redaction does: any case, Unicode form or confusable spelling.
  const ignored = new Set(ignore.map(foldFieldName));
  for (const k of Object.keys(v)) if (!ignored.has(foldFieldName(k))) out[k] = strip(v[k]!, ignore);
  return out;
}

function mapStrings(v: Tree, f: (s: string) => string): Tree {
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (!isObj(v)) return v;
  const out: { [key: string]: Tree } = {};
  for (const k of Object.keys(v)) out[k] = mapStrings(v[k]!, f);
  return out;
}

/** Paths to every node for which `pick` holds (root included). */
function paths(v: Tree, pick: (node: Tree) => boolean, at: Path = []): Path[] {
  const here = pick(v) ? [at] : [];
  if (Array.isArray(v)) return [...here, ...v.flatMap((x, i) => paths(x, pick, [...at, i]))];
  if (isObj(v)) return [...here, ...Object.keys(v).flatMap((k) => paths(v[k]!, pick, [...at, k]))];
  return here;
}

/** Copy of `v` with the node at `path` replaced by `f(node)`. */
function updateAt(v: Tree, path: Path, f: (node: Tree) => Tree): Tree {
  if (path.length === 0) return f(v);
  const [head, ...rest] = path;
  if (Array.isArray(v)) return v.map((x, i) => (i === head ? updateAt(x, rest, f) : x));
  const out: { [key: string]: Tree } = {};
  for (const k of Object.keys(v as object)) out[k] = k === head ? updateAt((v as Record<string, Tree>)[k]!, rest, f) : (v as Record<string, Tree>)[k]!;
  return out;
}

function changeLeaf(v: Tree): Tree {
  if (v === null) return 0;
  if (typeof v === "boolean") return !v;
  if (typeof v === "number") return v + 1;
  if (typeof v === "string") return `${v}!`;
  throw new Error("not a leaf");
}

const isLeaf = (v: Tree) => v === null || typeof v !== "object";
const fp = (v: unknown, ignore?: readonly string[]) => fingerprintArgs(v, ignore);
const RUNS = { numRuns: 200 };

// ---------------------------------------------------------------------------------------------
// Properties: what must NOT change the fingerprint
// ---------------------------------------------------------------------------------------------

describe("fingerprintArgs — invariances", () => {
  it("key order never changes the fingerprint, at any depth", () => {
    fc.assert(
      fc.property(argsArb(), fc.integer(), (args, seed) => {
        expect(fp(shuffleDeep(args, rng(seed)))).toBe(fp(args));
        expect(canonicalize(shuffleDeep(args, rng(seed)))).toBe(canonicalize(args));
      }),
      RUNS,
    );
  });

  it("DEFAULT_IGNORE_FIELDS, at any depth and with any value, never change the fingerprint", () => {
    const key = fc.oneof({ weight: 3, arbitrary: plainKey }, { weight: 1, arbitrary: fc.constantFrom(...DEFAULT_IGNORE_FIELDS) });
    fc.assert(
      fc.property(argsArb(key), (args) => {
        expect(fp(args)).toBe(fp(strip(args, DEFAULT_IGNORE_FIELDS)));
      }),
      RUNS,
    );
  });

  it("custom ignore fields, at any depth, never change the fingerprint", () => {
    const arb = fc
      .uniqueArray(plainKey, { minLength: 1, maxLength: 3 })
      .chain((ignore) => fc.tuple(fc.constant(ignore), argsArb(fc.oneof(plainKey, fc.constantFrom(...ignore)))));
    fc.assert(
      fc.property(arb, ([ignore, args]) => {
        const stripped = strip(args, ignore);
        expect(fp(args, ignore)).toBe(fp(stripped, ignore));
        expect(fp(args, ignore)).toBe(fp(stripped, [])); // nothing else was dropped
      }),
      RUNS,
    );
  });

  it("NFC and NFD spellings of string values fingerprint the same", () => {
    const composable = fc.constantFrom("a", "e", "é", "e\u0301", "ñ", "n\u0303", "Å", "ü", "ḉ", "한", "ẛ̣", " ");
    const leaf = fc.oneof(fc.string({ unit: composable, maxLength: 6 }), fc.integer());
    fc.assert(
      fc.property(argsArb(plainKey, leaf), (args) => {
        const nfc = fp(mapStrings(args, (s) => s.normalize("NFC")));
        expect(fp(mapStrings(args, (s) => s.normalize("NFD")))).toBe(nfc);
        expect(fp(args)).toBe(nfc);
      }),
      RUNS,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Properties: what MUST change the fingerprint
// ---------------------------------------------------------------------------------------------

describe("fingerprintArgs — sensitivity", () => {
  it("changing any value anywhere changes the fingerprint", () => {
    fc.assert(
      fc.property(argsArb(), fc.nat(), (args, pickSeed) => {
        const leaves = paths(args, isLeaf);
        fc.pre(leaves.length > 0);
        const changed = updateAt(args, leaves[pickSeed % leaves.length]!, changeLeaf);
        expect(fp(changed)).not.toBe(fp(args));
      }),
      RUNS,
    );
  });

  it("adding a non-ignored field to any object changes the fingerprint", () => {
    fc.assert(
      fc.property(argsArb(), fc.nat(), plainKey, asciiLeaf, (args, pickSeed, newKey, value) => {
        const objects = paths(args, isObj);
        const at = objects[pickSeed % objects.length]!;
        const changed = updateAt(args, at, (node) => {
          fc.pre(!Object.prototype.hasOwnProperty.call(node, newKey));
          return { ...(node as object), [newKey]: value };
        });
        expect(fp(changed)).not.toBe(fp(args));
      }),
      RUNS,
    );
  });

  it("removing a field (or an array element) anywhere changes the fingerprint", () => {
    fc.assert(
      fc.property(argsArb(), fc.nat(), fc.nat(), (args, pickSeed, itemSeed) => {
        const containers = paths(args, (n) => (Array.isArray(n) ? n.length > 0 : isObj(n) && Object.keys(n).length > 0));
        const at = containers[pickSeed % containers.length]!;
        const changed = updateAt(args, at, (node) => {
          if (Array.isArray(node)) return node.filter((_, i) => i !== itemSeed % node.length);
          const keys = Object.keys(node as object);
          const drop = keys[itemSeed % keys.length];
          return Object.fromEntries(Object.entries(node as object).filter(([k]) => k !== drop));
        });
        expect(fp(changed)).not.toBe(fp(args));
      }),
      RUNS,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Examples
// ---------------------------------------------------------------------------------------------

describe("canonicalize / fingerprintArgs — examples", () => {
  it("sorts keys at every depth and keeps array order", () => {
    expect(canonicalize({ b: 1, a: { d: [3, 1], c: "x" } })).toBe('{"a":{"c":"x","d":[3,1]},"b":1}');
    expect(fp({ list: [1, 2] })).not.toBe(fp({ list: [2, 1] }));
  });

  it("drops default ignored fields everywhere, including inside arrays of objects", () => {
    const a = { to: "a@x.io", request_id: "r1", meta: { traceId: "t1", items: [{ sku: 1, timestamp: 111 }] } };
    const b = { to: "a@x.io", request_id: "r2", meta: { traceId: "t2", items: [{ sku: 1, timestamp: 222 }] } };
    expect(canonicalize(a)).toBe('{"meta":{"items":[{"sku":1}]},"to":"a@x.io"}');
    expect(fp(a)).toBe(fp(b));
  });

  it("a custom ignore list replaces the defaults", () => {
    expect(fp({ x: 1, nonce: 1 }, ["nonce"])).toBe(fp({ x: 1, nonce: 2 }, ["nonce"]));
    expect(fp({ x: 1, timestamp: 1 }, ["nonce"])).not.toBe(fp({ x: 1, timestamp: 2 }, ["nonce"]));
    expect(fp({ x: 1, timestamp: 1 }, [])).not.toBe(fp({ x: 1 }, []));
  });

  it("ignored names are only ignored as keys, never as values", () => {
    expect(fp({ note: "timestamp" })).not.toBe(fp({ note: "traceId" }));
  });

  it("distinguishes types that print alike", () => {
    const values = [1, "1", true, "true", 0, false, null, "null", [], {}, "", [null]];
    const prints = new Set(values.map((v) => fp({ v })));
    expect(prints.size).toBe(values.length);
  });

  it("treats an undefined field as absent, but null as a value", () => {
    expect(fp({ a: 1, b: undefined })).toBe(fp({ a: 1 }));
    expect(fp({ a: 1, b: null })).not.toBe(fp({ a: 1 }));
  });

  it("fingerprints absent args like an empty object", () => {
    expect(fp(undefined)).toBe(fp({}));
    expect(fp(null)).toBe(fp({}));
  });

  it("is the sha256 hex of the canonical form", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const args = { b: "é", a: 1 };
    expect(fp(args)).toBe(sha256Hex(canonicalize(args)));
    expect(fp(args)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("different NFC strings stay different", () => {
    expect(fp({ name: "café" })).not.toBe(fp({ name: "cafe" }));
  });

  // Regression: keys used to be sorted by their raw spelling before NFC normalisation.
  it("NFC and NFD spellings of an object key fingerprint the same", () => {
    expect(fp({ "e\u0301": 1, f: 2 })).toBe(fp({ "\u00e9": 1, f: 2 }));
  });

  // Regression: building an object with `out[key] = …` made "__proto__" the prototype setter, so
  // that field (JSON.parse creates it as an own property) vanished from the canonical form.
  it("a '__proto__' field takes part in the fingerprint", () => {
    const a = JSON.parse('{"__proto__":{"x":1},"y":1}');
    const b = JSON.parse('{"__proto__":{"x":2},"y":1}');
    expect(fp(a)).not.toBe(fp(b));
  });
});
