import { describe } from "vitest";
import { PROVIDERS, type Provider } from "./databases";

/**
 * describe.each(PROVIDERS) for a file that mostly waits (storm windows, delivery backoffs, idle
 * timeouts): the providers' suites run side by side, each on its own database and server, instead
 * of SQLite's minute and then Postgres's. Each provider's tests still run one after another, in
 * order, with the suite's hooks around them; nothing is shared between the two but the machine.
 */
export function describeProvidersAtOnce(name: string, body: (provider: Provider) => void): void {
  describe.concurrent.each(PROVIDERS)("%s", (provider) => {
    describe.sequential(name, () => body(provider));
  });
}
