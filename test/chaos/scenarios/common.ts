import { type Brain, callsOf, paraphrase, succeeded } from "../model";

/**
 * The usual agent: call the tool; if it reports an error, decide again — a new tool call with a
 * new id and, often, new wording — until it succeeds or the agent gives up.
 */
export function untilDone(tool: string, maxCalls = 6): Brain {
  return (view, rng) => {
    if (succeeded(view, tool)) return { say: `done: ${tool}` };
    if (callsOf(view, tool) >= maxCalls) return { say: `gave up on ${tool}` };
    return { call: [{ tool, input: paraphrase(tool, view.task, rng, callsOf(view, tool)) }] };
  };
}
