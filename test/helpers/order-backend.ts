import http from "node:http";
import type net from "node:net";

type Op = "reserve" | "release" | "charge" | "refund";

/**
 * The seed's order backend over real HTTP: inventory reservations and card charges, each keyed by
 * the caller's Idempotency-Key like any payment API. `effects` counts what really changed; `hits`
 * counts requests, so a duplicate that the key absorbed shows as a hit without an effect.
 */
export class OrderBackend {
  readonly hits: Op[] = [];
  readonly effects: Op[] = [];
  /** Reservation and charge ids still standing. */
  readonly reserved = new Set<string>();
  readonly charged = new Map<string, number>();
  private readonly answers = new Map<string, unknown>();
  /** Applies the effect of the next request for this op, then never answers it (a lost response). */
  hangNext: Op | null = null;
  private server!: http.Server;
  url = "";

  async start(): Promise<void> {
    this.server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const op = req.url!.slice(1) as Op;
      const key = String(req.headers["idempotency-key"] ?? "");
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      this.hits.push(op);
      const answer = this.answers.get(`${op}:${key}`) ?? this.apply(op, key, body);
      if (this.hangNext === op) {
        this.hangNext = null;
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  private apply(op: Op, key: string, body: Record<string, unknown>): unknown {
    this.effects.push(op);
    let answer: unknown;
    switch (op) {
      case "reserve": {
        const reservationId = `res_${this.reserved.size + 1}_${key.slice(0, 6)}`;
        this.reserved.add(reservationId);
        answer = { reservationId };
        break;
      }
      case "release":
        this.reserved.delete(String(body.reservationId));
        answer = { released: body.reservationId };
        break;
      case "charge": {
        const chargeId = `ch_${this.charged.size + 1}_${key.slice(0, 6)}`;
        this.charged.set(chargeId, Number(body.amount));
        answer = { chargeId };
        break;
      }
      case "refund":
        this.charged.delete(String(body.chargeId));
        answer = { refunded: body.chargeId };
        break;
    }
    this.answers.set(`${op}:${key}`, answer);
    return answer;
  }

  count(op: Op, of: "hits" | "effects" = "effects"): number {
    return this[of].filter((o) => o === op).length;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A backend call from an agent or a compensator: the gate's key travels as the Idempotency-Key. */
export async function callBackend(url: string, op: Op, idempotencyKey: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const res = await fetch(`${url}/${op}`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
    body: JSON.stringify(body),
    signal,
  });
  return res.json();
}
