export interface WebhookOptions {
  timeoutMs?: number;
  /** Attempts in all, the first included. */
  attempts?: number;
  /** Delay before the first retry; doubled for each one after. */
  backoffMs?: number;
  /** Deliveries in flight or waiting to retry; beyond it new ones are dropped (and logged). */
  maxPending?: number;
  fetch?: typeof fetch;
}

/**
 * Fire-and-forget delivery of storm notices: `send` returns at once and never throws, so neither
 * a decision nor the next detector pass ever waits for the receiver. Each POST has a timeout;
 * network errors, timeouts, 429 and 5xx are retried with backoff, other answers are final.
 */
export class StormWebhook {
  private pending = 0;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly url: string,
    private readonly options: WebhookOptions = {},
  ) {}

  send(type: string, payload: unknown): void {
    if (this.pending >= (this.options.maxPending ?? 100)) {
      console.warn(`[idemgate] storm webhook: ${this.pending} deliveries pending, dropped a ${type}`);
      return;
    }
    this.pending++;
    const body = JSON.stringify({ type, sentAt: new Date().toISOString(), data: payload });
    const delivery = this.deliver(type, body).finally(() => {
      this.pending--;
      this.inFlight.delete(delivery);
    });
    this.inFlight.add(delivery);
  }

  /** Waits for every delivery under way (shutdown, tests). */
  async drain(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private async deliver(type: string, body: string): Promise<void> {
    const attempts = this.options.attempts ?? 4;
    let delay = this.options.backoffMs ?? 500;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.post(type, body);
      if (outcome === "done") return;
      if (outcome === "final" || attempt >= attempts) {
        console.warn(`[idemgate] storm webhook: ${type} not delivered to ${this.url} (${outcome}, attempt ${attempt})`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay).unref());
      delay *= 2;
    }
  }

  private async post(type: string, body: string): Promise<"done" | "final" | "retry"> {
    try {
      const res = await (this.options.fetch ?? fetch)(this.url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "idemgate", "x-idemgate-event": type },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
      });
      await res.body?.cancel();
      if (res.ok) return "done";
      return res.status === 429 || res.status >= 500 ? "retry" : "final";
    } catch {
      return "retry";
    }
  }
}
