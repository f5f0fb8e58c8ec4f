/** A count as people read it: whole numbers without decimals ("105", not "105.0"), a mean to one decimal. */
export function formatCount(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString("en-US") : value.toLocaleString("en-US", { maximumFractionDigits: 1, minimumFractionDigits: 1 });
}
