"""One gated call: begin -> (wait out in_progress) -> run the tool only on execute/verify -> complete.

Retryable tool failures go round again as a new attempt on the same key; every other outcome is a
CallResult or a typed exception (errors.py).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Union, cast

from . import context as _context
from .context import Cost, ToolCall
from .errors import (
    ApprovalRequired,
    Blocked,
    Conflict,
    GateError,
    InProgress,
    LeaseLost,
    PreviewRequired,
    Refused,
    ToolErrorInfo,
    ToolFailed,
    UnknownOutcome,
)
from .heartbeat import Heartbeat, parse_time
from .preview import exchange_preview
from .retry import DEFAULT_TOOL_RETRY, Backoff, sleep, with_gate_retry
from .transport import HttpTransport
from .types import Accepted, CallResult, Compensation, Found, NotFound, Unknown

Runner = Callable[..., Any]
Begin = Callable[[Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class CallDeps:
    """Settings of one gate client, shared by all its calls."""

    transport: HttpTransport
    gate_retry: Backoff
    wait: float
    max_wait: float
    lease_seconds: Optional[int]
    heartbeat: bool
    heartbeat_interval: Optional[float]
    tool_retry: Union[Backoff, bool, None]
    classify_error: Callable[[BaseException], ToolErrorInfo]
    #: The Gate, for ApprovalRequired.wait().
    owner: Any = None


@dataclass
class CallOptions:
    """Per call: gate.call(spec, fn, **options)."""

    verify: Optional[Callable[[ToolCall], Any]] = None
    check: Optional[Callable[[ToolCall, Any], Any]] = None
    preview: Optional[Callable[[Any], Any]] = None
    preview_timeout: float = 300.0
    compensate: Optional[Callable[[Any], Any]] = None
    cost: Optional[Callable[[Any], Any]] = None
    lease_seconds: Optional[int] = None
    max_wait: Optional[float] = None
    tool_retry: Union[Backoff, bool, None] = None
    classify_error: Optional[Callable[[BaseException], ToolErrorInfo]] = None


class _Retry(Exception):
    """One attempt failed retryably (the gate released the key): go round again."""

    def __init__(self, error: ToolErrorInfo, cause: BaseException) -> None:
        super().__init__(error.message)
        self.error, self.cause = error, cause


def run_call(deps: CallDeps, call_request: dict[str, Any], fn: Callable[[ToolCall], Any], options: CallOptions, runner: Runner, begin_fn: Begin) -> CallResult[Any]:
    request = dict(call_request)
    previewed = redeemed = False
    started = time.monotonic()
    max_wait = options.max_wait if options.max_wait is not None else deps.max_wait
    advice = DEFAULT_TOOL_RETRY
    waits = failures = 0
    while True:
        remaining = max(0.0, max_wait - (time.monotonic() - started))
        wait_ms = int(min(deps.wait, remaining) * 1000)
        begin = {**request, "waitMs": wait_ms} if wait_ms > 0 else request
        sent_at = time.monotonic()
        decision = with_gate_retry(lambda: begin_fn(begin), deps.gate_retry)
        kind = decision["decision"]

        if kind == "in_progress":
            waited = time.monotonic() - started
            if waited >= max_wait:
                raise InProgress(decision["callId"], decision["key"], waited)
            # A long poll that ran its course already waited; a quick answer gets the advised backoff.
            long_polled = wait_ms > 0 and time.monotonic() - sent_at >= wait_ms / 1000 * 0.8
            pause = 0.0 if long_polled else min(decision["retryAfterMs"] / 1000, Backoff.from_wire(decision.get("retry"), advice).delay(waits))
            waits += 1
            sleep(min(pause, max_wait - waited))
            continue
        if kind == "preview_required" and options.preview is not None and not previewed:
            previewed = True
            token = exchange_preview(deps, request, options)
            if token is not None:
                request["previewToken"] = token
            continue
        if kind == "approval_required" and "bypass" in request and not redeemed:
            # Asked again after an operator approved: the request's single-use token runs it once,
            # under the key's next generation. Still pending (or denied): ApprovalRequired.
            redeemed = True
            answer = with_gate_retry(lambda: deps.transport.resend_request(decision["requestId"]), deps.gate_retry)
            if answer.get("bypassToken"):
                request.pop("bypass")
                request["bypassToken"] = answer["bypassToken"]
                continue
        if kind not in ("execute", "verify"):
            return _terminal(deps, decision)

        if kind == "execute":
            advice = Backoff.from_wire(decision.get("retry"), advice)
        # A claimed resend continues on its generation; a spent preview token previews afresh.
        request.pop("bypass", None)
        request.pop("bypassToken", None)
        if request.pop("previewToken", None) is not None:
            previewed = False
        try:
            return _attempt(deps, decision, fn, options, runner, request.get("args"))
        except _Retry as retry:
            failures += 1
            tool_retry = options.tool_retry if options.tool_retry is not None else deps.tool_retry
            policy = None if tool_retry is False else tool_retry if isinstance(tool_retry, Backoff) else advice
            if policy is None or failures >= policy.max_attempts:
                raise retry.cause from None
            sleep(max(policy.delay(failures - 1), retry.error.retry_after_seconds or 0))


def _terminal(deps: CallDeps, decision: Mapping[str, Any]) -> CallResult[Any]:
    kind = decision["decision"]
    if kind == "replay":
        common = dict(call_id=decision["callId"], key=decision["key"], replayed=True, replays=decision.get("replays", 0), args_mismatch=decision.get("argsMismatch", False), loop_warning=decision.get("loopWarning"))
        if decision["status"] == "failed":
            raise ToolFailed(ToolErrorInfo.from_wire(decision.get("error")), call_id=decision["callId"], key=decision["key"], replayed=True)
        if decision["status"] == "accepted":
            return CallResult("accepted", Accepted(decision.get("operationId", ""), decision.get("statusUrl")), **common)
        return CallResult("replayed", decision.get("result"), **common)
    if kind == "refused":
        raise Refused(decision["callId"], decision["key"], decision["original"])
    if kind == "conflict":
        raise Conflict(decision["callId"], decision["key"])
    if kind == "approval_required":
        raise ApprovalRequired(decision["requestId"], deps.owner)
    if kind == "preview_required":
        raise PreviewRequired(decision["key"], decision["mode"])
    if kind == "blocked":
        raise Blocked(decision["reason"], list(decision.get("pattern", [])), int(decision.get("repeats", 0)), decision.get("message"), decision.get("budget"))
    raise GateError("bad_response", f"unknown decision {kind!r}", False)


def _attempt(deps: CallDeps, claim: Mapping[str, Any], fn: Callable[[ToolCall], Any], options: CallOptions, runner: Runner, args: Any) -> CallResult[Any]:
    call_id, key, lease_token = claim["callId"], claim["key"], claim["leaseToken"]
    tool_call = ToolCall(key, call_id, claim["attempt"], claim.get("recovered", True) if claim["decision"] == "execute" else True)
    lease_seconds = options.lease_seconds if options.lease_seconds is not None else deps.lease_seconds
    expires_at = parse_time(claim["leaseExpiresAt"])
    if lease_seconds is not None:
        # Our own lease length: the first beat sets it before the tool starts, later beats keep it.
        try:
            beat = with_gate_retry(lambda: deps.transport.heartbeat(call_id, {"leaseToken": lease_token, "extendSeconds": lease_seconds}), deps.gate_retry)
            if beat.get("leaseExpiresAt"):
                expires_at = parse_time(beat["leaseExpiresAt"])
        except GateError as error:
            if error.code in ("lease_lost", "not_found"):
                raise LeaseLost(call_id, key, executed=False) from error
    lost = threading.Event()

    def on_lost(_error: GateError) -> None:
        lost.set()
        tool_call.cancelled.set()
        runner_cancel = getattr(runner, "cancel", None)
        if runner_cancel is not None:
            runner_cancel()

    heartbeat = (
        Heartbeat(deps.transport, call_id, lease_token, expires_at, lease_seconds, deps.gate_retry, on_lost, deps.heartbeat_interval).start()
        if deps.heartbeat
        else None
    )
    value: Any = None
    verified = False
    unknown: Optional[str] = None
    failure: Optional[BaseException] = None
    check_outcome: Optional[str] = None
    try:
        with _context.in_tool_call(tool_call):
            found: Any = None
            if claim["decision"] == "verify" and options.check is not None:
                found = runner(options.check, tool_call, args)
                check_outcome = "found" if isinstance(found, Found) else "not_found" if isinstance(found, NotFound) or found is None else "unknown"
                if isinstance(found, Unknown):
                    unknown = found.reason or "the status check could not tell"
            if claim["decision"] == "verify" and options.verify is not None and not isinstance(found, Found) and unknown is None:
                found = runner(options.verify, tool_call)
            if isinstance(found, Found):
                value, verified = cast("Found[Any]", found).value, True
            elif unknown is None:
                value = runner(fn, tool_call)
    except BaseException as error:  # noqa: BLE001 - recorded as the call's failure, then re-raised
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        failure = error
    finally:
        if heartbeat is not None:
            heartbeat.stop()

    if lost.is_set():
        raise LeaseLost(call_id, key, executed=True, value=value) from failure
    if unknown is not None:
        # Neither run it (it may have happened) nor record an outcome (none is known): the call waits
        # in the operators' queue. The report is best effort: the answer is the same either way.
        try:
            deps.transport.report_check(call_id, {"leaseToken": lease_token, "outcome": "unknown", "reason": unknown[:2000]})
        except GateError:
            pass
        raise UnknownOutcome(call_id, key, unknown)

    body: dict[str, Any] = {"leaseToken": lease_token}
    if check_outcome in ("found", "not_found"):
        body["check"] = check_outcome
    not_stored: Optional[str] = None
    error_info: Optional[ToolErrorInfo] = None
    if failure is not None:
        error_info = (options.classify_error or deps.classify_error)(failure)
        body.update(outcome="failed", error=error_info.to_wire())
        if tool_call.reported_cost is not None:
            body["cost"] = tool_call.reported_cost.to_wire()
    else:
        # A value found by verify ran on an earlier attempt, whose cost is that attempt's to report.
        cost = None if verified else _cost_of(value, options) or tool_call.reported_cost
        if cost is not None:
            body["cost"] = cost.to_wire()
        if isinstance(value, Accepted):
            body.update(outcome="accepted", **value.to_wire())
        else:
            try:
                value = as_json(value, "the result")
                body.update(outcome="succeeded", result=value)
                if options.compensate is not None and not verified:
                    body["compensation"] = _compensation_wire(options.compensate(value))
            except TypeError as error:
                not_stored = str(error)
                body.update(outcome="succeeded")
    recorded = True
    try:
        with_gate_retry(lambda: deps.transport.complete(call_id, body), deps.gate_retry)
    except GateError as error:
        if error.code in ("lease_lost", "not_found"):
            raise LeaseLost(call_id, key, executed=True, value=value) from error
        if failure is None and "result" in body and not error.retryable and error.code in ("invalid_json", "invalid_input", "payload_too_large"):
            # The tool ran and the gate will never take this value: record the success without it,
            # or the lease lapses and the next begin runs the finished tool again.
            not_stored = str(error)
            bare = {k: v for k, v in body.items() if k not in ("result", "compensation")}
            try:
                with_gate_retry(lambda: deps.transport.complete(call_id, bare), deps.gate_retry)
            except GateError:
                recorded = False
        else:
            # The gate did not take the outcome: its lease will lapse and a later attempt runs again
            # with the same key, which the tool's downstream idempotency must absorb.
            recorded = False

    if failure is not None:
        assert error_info is not None
        if error_info.retryable:
            raise _Retry(error_info, failure)
        raise failure
    common = dict(call_id=call_id, key=key, attempt=claim["attempt"], loop_warning=claim.get("loopWarning"))
    if isinstance(value, Accepted):
        return CallResult("accepted", value, **common)
    if verified:
        return CallResult("verified", value, **common)
    return CallResult("executed", value, recovered=tool_call.recovered, recorded=recorded, result_not_stored=not_stored, **common)


def as_json(value: Any, what: str) -> Any:
    """The value as the gate stores and replays it: a fresh result has exactly a replay's shape."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise TypeError(f"{what} must be JSON (dict, list, str, number, bool, None): {error}") from None


def _cost_of(value: Any, options: CallOptions) -> Optional[Cost]:
    if options.cost is None:
        return None
    try:
        cost = options.cost(value)
    except Exception:  # noqa: BLE001 - a throwing reckoner costs the call nothing it did not report
        return None
    if cost is None or isinstance(cost, Cost):
        return cost
    amount, currency = cost
    return Cost(float(amount), str(currency))


def _compensation_wire(spec: Any) -> dict[str, Any]:
    if isinstance(spec, Compensation):
        tool, args = spec.tool, spec.args
    elif isinstance(spec, Mapping):
        fields = cast("Mapping[str, Any]", spec)
        tool, args = fields["tool"], fields.get("args")
    else:
        tool, args = spec
    wire: dict[str, Any] = {"tool": tool}
    if args is not None:
        wire["args"] = args
    return wire
