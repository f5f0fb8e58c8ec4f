import type { GateService } from "../../gate/gate-service";
import type { OutboundGuard } from "../../outbound/outbound-fetch";
import type { ResendService } from "../../resends/resend-service";
import type { UpstreamService } from "../upstreams/upstream-service";
import { HttpGateway } from "./http-gateway";

/** The HTTP gateway (/gw) over the gate, the upstream registry and the outbound allowlist (built once, in lib/server/composition-root.ts). */
export function buildHttpGateway(gate: GateService, upstreams: UpstreamService, guard: OutboundGuard, resends: () => ResendService): HttpGateway {
  return new HttpGateway({
    service: gate,
    resends,
    resolveUpstream: (projectId, name) => upstreams.resolve(projectId, name, "http"),
    outbound: { assertAllowed: (projectId, url) => guard.assertAllowed(projectId, url), fetch: (projectId, url, init) => guard.fetch(projectId, url, init) },
  });
}
