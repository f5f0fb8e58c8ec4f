/**
 * JSON numbers compared by the value written, not by the double a parser makes of it: beyond 2^53
 * (`9007199254740993`) or past a double's precision (`0.10000000000000001`) two different numbers
 * read as one double, and two different payloads (two accounts) fingerprinted as one.
 */

/**
 * The stand-in for a number a double cannot hold as written: `{ "idemgate/number": "<as written>" }`.
 * Plain JSON, so it crosses every transport (agent API, in process, MCP, HTTP bodies) unchanged;
 * canonically it is the number itself (canonical.ts).
 */
export const NUMBER_FIELD = "idemgate/number";

const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * A JSON number's exact value as `<sign><significant digits>e<exponent>` (`1.50` and `15e-1` are
 * both `15e-1`, `-0` is `0`), or null for text that is not a JSON number. The exponent is a
 * BigInt: `1e99999999999999999999` and `1e99999999999999999998` stay apart.
 */
export function exactDecimal(text: string): string | null {
  const match = NUMBER_TEXT.exec(text.trim());
  if (!match) return null;
  const [, sign, whole, fraction = "", exponent = "0"] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, "");
  if (digits === "") return "0";
  let power = BigInt(exponent) - BigInt(fraction.length);
  const significant = digits.replace(/0+$/, "");
  power += BigInt(digits.length - significant.length);
  digits = significant;
  return `${sign}${digits}e${power}`;
}

/** Whether a JSON number reads as a double without losing anything: the double's shortest text is the same value. */
export function fitsDouble(text: string): boolean {
  const double = Number(text);
  return Number.isFinite(double) && exactDecimal(JSON.stringify(double)) === exactDecimal(text);
}

/**
 * A number's canonical text: JSON.stringify's for one a double holds (what older versions
 * fingerprinted, so their records still match), else its exact value. Two texts share a canonical
 * text exactly when they are the same number; null for text that is not a JSON number.
 */
export function canonicalNumber(text: string): string | null {
  const exact = exactDecimal(text);
  if (exact === null) return null;
  return fitsDouble(text) ? JSON.stringify(Number(text)) : exact;
}
