import { z } from "zod";
import { CallSummarySchema } from "./calls";
import { RunCompensationSchema } from "./sagas";

/**
 * The operators' queue (GET /api/v1/operator/projects/{projectId}/queue): what no machine can
 * finish. Aborted runs whose compensation failed permanently (or is still under way), calls whose
 * status check could not tell, long-running operations not finished yet, and how verify cases
 * were settled: by a checker or by hand.
 */
const isoTime = z.iso.datetime();

export const QueueCallSchema = CallSummarySchema.pick({ callId: true, tool: true, key: true, runId: true, stepId: true, agentId: true })
  .extend({
    checkedAt: isoTime.describe("When the status check answered unknown (the latest one)"),
    reason: z.string().nullable().describe("Why the checker could not tell"),
  })
  .meta({ id: "QueueCall", description: "A call left in verify whose status check answered unknown: resolve it with what you find downstream" });

export const AcceptedCallSchema = z
  .object({
    callId: z.string(),
    tool: z.string(),
    key: z.string(),
    runId: z.string(),
    operationId: z.string(),
    statusUrl: z.string().nullable(),
    acceptedAt: isoTime,
    expiresAt: isoTime.describe("The accepted record's own TTL (acceptedTtlSeconds)"),
  })
  .meta({ id: "AcceptedCall", description: "A long-running operation the tool started and the gate is waiting to see finished" });

export const VerifyTallySchema = z
  .object({
    found: z.number().int().describe("Checkers found the effect: completed with what they found, nothing ran twice"),
    notFound: z.number().int().describe("Checkers found nothing: the tool ran under the same key"),
    unknown: z.number().int().describe("Checkers could not tell: the call went to this queue"),
    byHand: z.number().int().describe("Calls an operator resolved by hand (left in verify or lease lost)"),
    from: isoTime.describe("The tally counts the ledger from here (the query's `from`, default 24 h ago)"),
    to: isoTime,
  })
  .meta({ id: "VerifyTally", description: "How verify cases were settled: automatically by a status check, or by hand" });

export const OperatorQueueSchema = z
  .object({
    runs: z.array(RunCompensationSchema).describe("Aborted runs needing attention, newest abort first: compensation_failed, or still compensating"),
    uncheckedCalls: z.array(QueueCallSchema).describe("Newest first; checks of the last 7 days"),
    accepted: z.array(AcceptedCallSchema).describe("Oldest first"),
    verify: VerifyTallySchema,
  })
  .meta({ id: "OperatorQueue" });

export type OperatorQueue = z.infer<typeof OperatorQueueSchema>;
export type QueueCall = z.infer<typeof QueueCallSchema>;
export type AcceptedCall = z.infer<typeof AcceptedCallSchema>;
export type VerifyTally = z.infer<typeof VerifyTallySchema>;
