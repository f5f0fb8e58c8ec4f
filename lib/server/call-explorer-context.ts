import { CallExplorer } from "./call-explorer";
import { getGate } from "./gate";
import { getOperators } from "./operator-context";
import { StorePolicySource } from "./policy-source";

const holder = globalThis as unknown as { __idemgateCallExplorer?: CallExplorer };

/** The explorer of a server process: the operator connection for its reads, the gate's policies. */
export function getCallExplorer(): CallExplorer {
  if (!holder.__idemgateCallExplorer) {
    const operators = getOperators();
    holder.__idemgateCallExplorer = new CallExplorer(operators.store, operators.records, new StorePolicySource(getGate().store));
  }
  return holder.__idemgateCallExplorer;
}
