import { parse } from "lossless-json";
import { DIGEST_FIELD, LITERAL_FIELD } from "../core/canonical";
import { NUMBER_FIELD, fitsDouble } from "../core/exact-number";

/**
 * A number a double may not hold as written has 16 or more significant digits or an exponent of
 * three digits; text with neither parses exactly with JSON.parse (the fast path, most requests).
 */
const MAYBE_INEXACT = /(?:\d\.?){16}|[eE][+-]?\d{3}/;

/**
 * The gate's stand-ins (`idemgate/number`, `idemgate/sha256`) are its wire format, not a client's:
 * a client's body that holds an object of that shape is kept apart from the value it stands for by
 * wrapping it as `{ "idemgate/literal": <the object> }` (an object of that shape too, so the
 * wrapping stays one to one). `{"a": {"idemgate/number": "5"}}` and `{"a": 5}` are two payloads.
 */
const STAND_IN_KEYS = new Set([NUMBER_FIELD, DIGEST_FIELD, LITERAL_FIELD]);

/**
 * parseExactJson for a payload a client wrote (an HTTP body, MCP tool arguments), where an object
 * shaped like a stand-in is the client's own and is kept apart from the number or digest it would
 * stand for.
 */
export function parseClientJson(text: string): unknown {
  const parsed = parseExactJson(text);
  return text.includes('"idemgate/') ? escapeStandIns(parsed) : parsed;
}

/** Whether a client's JSON may parse differently for fingerprints than JSON.parse reads it. */
export function mayParseExactly(text: string): boolean {
  return MAYBE_INEXACT.test(text) || text.includes('"idemgate/');
}

/** A client's value already parsed (by express.json(), say): objects shaped like a stand-in kept apart, as parseClientJson does. */
export function clientValue(value: unknown): unknown {
  return escapeStandIns(value);
}

function escapeStandIns(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(escapeStandIns);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  // A stand-in this parse made for an inexact number is left as it is.
  if (entries.length === 1 && entries[0]![0] === NUMBER_FIELD && madeByParse.has(value)) return value;
  const escaped: Record<string, unknown> = {};
  for (const [key, item] of entries) Object.defineProperty(escaped, key, { value: escapeStandIns(item), enumerable: true, writable: true, configurable: true });
  if (entries.length === 1 && STAND_IN_KEYS.has(entries[0]![0])) return { [LITERAL_FIELD]: escaped };
  return escaped;
}

/** The stand-ins parseExactJson made (as opposed to objects of that shape the text held). */
const madeByParse = new WeakSet<object>();

/**
 * JSON.parse for fingerprints: a number a double holds is a number, one it cannot hold as written
 * is the stand-in `{ "idemgate/number": "<as written>" }` (lib/core/exact-number.ts), so payloads
 * that differ only there never share a fingerprint. Parsed by lossless-json, a repeated key keeping
 * its last value as JSON.parse does; throws JSON.parse's SyntaxError for text that is not JSON.
 */
export function parseExactJson(text: string): unknown {
  const plain: unknown = JSON.parse(text);
  if (!MAYBE_INEXACT.test(text)) return plain;
  return parse(text, null, {
    parseNumber: (value: string) => {
      if (fitsDouble(value)) return Number(value);
      const standIn = { [NUMBER_FIELD]: value };
      madeByParse.add(standIn);
      return standIn;
    },
    onDuplicateKey: ({ newValue }: { newValue: unknown }) => newValue,
  });
}
