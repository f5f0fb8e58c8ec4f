"""Sagas: run a run's compensation plan, each undo a gated call under ``<key>:compensate``."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from .call import CallDeps, CallOptions, run_call
from .context import ToolCall
from .errors import LeaseLost, ToolFailed
from .retry import with_gate_retry
from .runners import sync_runner
from .types import CompensationOutcome

Compensator = Callable[[Any, ToolCall], Any]


def run_compensation(deps: CallDeps, run_id: str, executors: Mapping[str, Compensator]) -> CompensationOutcome:
    """Step by step, with the tool's retry policy and heartbeats. Any number of runners may run one
    plan at once: the gate gives each step's lease to one of them and the others wait for its
    outcome, so no undo runs twice."""
    while True:
        plan = with_gate_retry(lambda: deps.transport.compensation_plan(run_id), deps.gate_retry)
        step = next((s for s in plan["steps"] if s["callId"] == plan.get("nextCallId")), None)
        if plan["state"] != "compensating" or step is None:
            return CompensationOutcome(plan["state"] == "compensated", plan["state"], plan)
        compensation = step["compensation"]
        executor = executors.get(compensation["tool"])
        if executor is None:
            raise LookupError(f'no compensator registered for tool "{compensation["tool"]}" (run {run_id}, call {step["callId"]})')
        request: dict[str, Any] = {"tool": compensation["tool"], "runId": run_id}
        if "args" in compensation:
            request["args"] = compensation["args"]
        call_id, undo_args = step["callId"], compensation.get("args")

        def begin(req: Mapping[str, Any], call_id: str = call_id) -> dict[str, Any]:
            return deps.transport.begin_compensation(run_id, call_id, req.get("waitMs"))

        def undo(tool_call: ToolCall, executor: Compensator = executor) -> Any:
            return executor(undo_args, tool_call)

        try:
            run_call(deps, request, undo, CallOptions(), sync_runner, begin)
        except LeaseLost:
            continue
        except Exception as error:  # noqa: BLE001 - the plan records what a permanent failure did
            info = error.error if isinstance(error, ToolFailed) else deps.classify_error(error)
            if not info.retryable:
                continue  # now on the plan as compensation_failed: one more read reports it
            now = with_gate_retry(lambda: deps.transport.compensation_plan(run_id), deps.gate_retry)
            return CompensationOutcome(False, now["state"], now, info)
