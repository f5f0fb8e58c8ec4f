export type InstantPrecision = "minutes" | "seconds" | "millis";

const LENGTH: Record<InstantPrecision, number> = { minutes: 16, seconds: 19, millis: 23 };

/** An ISO instant as operators read it on every page: "2026-11-22 12:34:56 UTC", to the precision asked. */
export function formatInstant(iso: string, precision: InstantPrecision = "minutes"): string {
  return `${iso.slice(0, LENGTH[precision]).replace("T", " ")} UTC`;
}
