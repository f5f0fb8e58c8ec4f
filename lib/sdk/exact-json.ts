import { parse } from "lossless-json";
import { NUMBER_FIELD, fitsDouble } from "../core/exact-number";

/**
 * A number a double may not hold as written has 16 or more significant digits or an exponent of
 * three digits; text with neither parses exactly with JSON.parse (the fast path, most requests).
 */
const MAYBE_INEXACT = /(?:\d\.?){16}|[eE][+-]?\d{3}/;

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
    parseNumber: (value: string) => (fitsDouble(value) ? Number(value) : { [NUMBER_FIELD]: value }),
    onDuplicateKey: ({ newValue }: { newValue: unknown }) => newValue,
  });
}
