import type { IncomingHttpHeaders } from "node:http";

/** What the API layer reads of a request's headers: a web `Headers`, or a Node request's headers behind `nodeHeaders`. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** A Node request's headers read the way `Headers.get` reads them (lower-case names, repeats joined by ", "). */
export function nodeHeaders(headers: IncomingHttpHeaders): HeaderReader {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}
