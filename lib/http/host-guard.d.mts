export function hostName(header: string | undefined | null): string | null;
export function isLoopbackHostName(name: string): boolean;
export function parseAllowedHosts(value: string | undefined): string[];
export function hostGuard(config: { listenHost?: string; allowedHosts?: string; publicUrls?: Array<string | undefined> }): {
  allows: (hostHeader: string | undefined | null) => boolean;
  describe: () => string[];
};
export function refusalBody(hostHeader: string | undefined | null): string;
