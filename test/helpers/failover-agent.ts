import {
  type BeginRequest,
  type BeginResponse,
  BeginResponseSchema,
  CallStatusSchema,
  type CallStatus,
  ErrorResponseSchema,
} from "../../lib/contract/v1";

/** One gate instance as the agents see it: a name for the logs and where it listens. */
export interface Instance {
  name: string;
  baseUrl: string;
}

/** One request as the agent saw it: the status, or a connection error (the instance is gone). */
export interface Exchange {
  instance: string;
  path: string;
  status: number | "connection_error";
  /** When the answer (or the connection error) came back. */
  at: number;
}

export interface Execution {
  callId: string;
  key: string;
  attempt: number;
  recovered: boolean;
  leaseToken: string;
  instance: string;
}

/** Everything one logical tool call saw, from its first begin to its end. */
export interface CallTrace {
  request: BeginRequest;
  key: string | null;
  /** The executes this agent was answered (usually one; a retry after a dead instance may add one). */
  executions: Execution[];
  /** The complete that was answered 200, with the result the agent sent. */
  completed: { callId: string; attempt: number; result: unknown; status: CallStatus; instance: string } | null;
  replayed: { callId: string; result: unknown } | null;
  /** 409 lease_lost on complete: another attempt took the key over while this one ran. */
  leaseLost: boolean;
  beginConnectionErrors: number;
  completeConnectionErrors: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An agent runtime in front of several gate instances, the way a load balancer with retries
 * treats them: a request that cannot reach an instance is sent again, unchanged, to the next one.
 * Every exchange is logged per instance so a test can show which instance answered what.
 */
export class FailoverAgent {
  readonly exchanges: Exchange[] = [];

  constructor(private readonly apiKey: string) {}

  /** POST to one instance; null when the connection failed (refused, reset, closed mid-answer). */
  async post(instance: Instance, path: string, body: unknown): Promise<{ status: number; json: unknown } | null> {
    try {
      const res = await fetch(`${instance.baseUrl}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${this.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      this.exchanges.push({ instance: instance.name, path, status: res.status, at: Date.now() });
      return { status: res.status, json };
    } catch {
      this.exchanges.push({ instance: instance.name, path, status: "connection_error", at: Date.now() });
      return null;
    }
  }

  /** The same request to each instance in turn until one answers. */
  private async postWithFailover(route: Instance[], path: string, body: unknown, onConnectionError: () => void) {
    for (const instance of route) {
      const answer = await this.post(instance, path, body);
      if (answer) return { ...answer, instance };
      onConnectionError();
    }
    throw new Error(`no instance answered ${path}`);
  }

  async begin(route: Instance[], request: BeginRequest, trace?: CallTrace): Promise<{ decision: BeginResponse; instance: Instance }> {
    const answer = await this.postWithFailover(route, "/api/v1/calls/begin", request, () => {
      if (trace) trace.beginConnectionErrors++;
    });
    if (answer.status !== 200) throw new Error(`begin on ${answer.instance.name}: HTTP ${answer.status} ${JSON.stringify(answer.json)}`);
    return { decision: BeginResponseSchema.parse(answer.json), instance: answer.instance };
  }

  /**
   * One logical tool call to its end: begin (waiting on a live attempt with `waitMs`), run the
   * tool for `toolMs` if told to execute, complete with `result(attempt)`. `route` is the order in
   * which instances are tried; a connection error moves on to the next one with the same request.
   */
  async run(
    route: Instance[],
    request: BeginRequest,
    options: { toolMs: number; result: (attempt: number) => unknown },
  ): Promise<CallTrace> {
    const trace: CallTrace = {
      request,
      key: null,
      executions: [],
      completed: null,
      replayed: null,
      leaseLost: false,
      beginConnectionErrors: 0,
      completeConnectionErrors: 0,
    };
    for (;;) {
      const { decision, instance } = await this.begin(route, request, trace);
      switch (decision.decision) {
        case "in_progress":
          trace.key = decision.key;
          await sleep(decision.retryAfterMs);
          continue;
        case "replay":
          trace.key = decision.key;
          trace.replayed = { callId: decision.callId, result: decision.result };
          return trace;
        case "execute": {
          trace.key = decision.key;
          trace.executions.push({ ...decision, instance: instance.name });
          await sleep(options.toolMs);
          await this.complete(route, decision.callId, decision.leaseToken, decision.attempt, options.result(decision.attempt), trace);
          return trace;
        }
        default:
          throw new Error(`unexpected decision for ${request.runId}: ${JSON.stringify(decision)}`);
      }
    }
  }

  async complete(route: Instance[], callId: string, leaseToken: string, attempt: number, result: unknown, trace: CallTrace): Promise<void> {
    const answer = await this.postWithFailover(route, `/api/v1/calls/${callId}/complete`, { leaseToken, outcome: "succeeded", result }, () => {
      trace.completeConnectionErrors++;
    });
    if (answer.status === 200) {
      const status = CallStatusSchema.parse(answer.json);
      trace.completed = { callId, attempt, result, status, instance: answer.instance.name };
      return;
    }
    const error = ErrorResponseSchema.parse(answer.json).error;
    if (answer.status === 409 && error.code === "lease_lost") {
      trace.leaseLost = true;
      return;
    }
    throw new Error(`complete on ${answer.instance.name}: HTTP ${answer.status} ${JSON.stringify(error)}`);
  }
}
