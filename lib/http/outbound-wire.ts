import type { OutboundAllowlistEntryWire } from "../contract/outbound";
import type { OutboundAllowlistRow } from "../store/prisma/outbound-allowlist-repository";

export function toWireAllowlistEntry(row: OutboundAllowlistRow): OutboundAllowlistEntryWire {
  return { id: row.id, pattern: row.pattern, note: row.note, createdAt: new Date(row.createdAt).toISOString(), createdBy: row.createdBy };
}
