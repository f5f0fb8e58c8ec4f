/**
 * A path segment Next.js would pass to a route unchanged: no escapes, not `.` or `..`. The lean
 * path (agent-api.ts, mcp-lean.ts) serves only such segments and leaves anything else to Next.js.
 */
export const PLAIN_SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9_.~-]*$/;
