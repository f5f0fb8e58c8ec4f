/** An ISO instant as operators read it on every page: "2026-11-22 12:34:56 UTC" (seconds optional). */
export function formatInstant(iso: string, withSeconds = false): string {
  return `${iso.replace("T", " ").slice(0, withSeconds ? 19 : 16)} UTC`;
}
