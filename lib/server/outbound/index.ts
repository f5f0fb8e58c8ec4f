export { type Outbound, createOutbound } from "./outbound-context";
export { OutboundRefusedError, type OutboundRefusal } from "./outbound-refused";
export type { OutboundInit } from "./outbound-fetch";
