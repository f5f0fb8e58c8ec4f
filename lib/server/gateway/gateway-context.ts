import { getGate } from "../gate";
import { getOutbound } from "../outbound/outbound-context";
import { getUpstreams } from "../upstreams/upstream-context";
import { HttpGateway } from "./http-gateway";

const holder = globalThis as unknown as { __idemgateHttpGateway?: HttpGateway };

/** The process's HTTP gateway (moves into lib/server/composition-root.ts once that exists). */
export function getHttpGateway(): HttpGateway {
  if (!holder.__idemgateHttpGateway) {
    const guard = getOutbound().guard;
    holder.__idemgateHttpGateway = new HttpGateway({
      service: getGate().service,
      resolveUpstream: (projectId, name) => getUpstreams().service.resolve(projectId, name, "http"),
      outbound: { assertAllowed: (projectId, url) => guard.assertAllowed(projectId, url), fetch: (projectId, url, init) => guard.fetch(projectId, url, init) },
    });
  }
  return holder.__idemgateHttpGateway;
}
