"""The gate client: begin -> (wait out in_progress) -> run the tool only on execute/verify -> complete."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Mapping, Optional, TypeVar, Union

from . import context as _context
from .context import Cost, ToolCall, current_run
from .errors import (
    ApprovalDenied,
    ApprovalRequired,
    Blocked,
    Conflict,
    GateError,
    InProgress,
    LeaseLost,
    PreviewDenied,
    PreviewPending,
    PreviewRequired,
    Refused,
    ToolErrorInfo,
    ToolFailed,
    UnknownOutcome,
    to_tool_error_info,
)
from .heartbeat import Heartbeat, parse_time
from .retry import DEFAULT_GATE_RETRY, DEFAULT_TOOL_RETRY, Backoff, sleep, with_gate_retry
from .transport import HttpTransport
from .types import _UNSET, Accepted, Call, CallResult, Compensation, CompensationOutcome, Found, NotFound, Preview, Unknown

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
Spec = Union[Call, Mapping[str, Any]]
Runner = Callable[..., Any]
Begin = Callable[[Mapping[str, Any]], dict[str, Any]]

_FIRST_PREVIEW_POLL = 0.25
_MAX_POLL = 2.0


@dataclass
class _Options:
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


class Gate:
    """A gate client over HTTP. Thread-safe: share one per process.

    ``wait``: server-side long poll per begin on a live attempt (<= 10 s); ``max_wait``: how long a
    call waits out another attempt before raising ``InProgress``; ``lease_seconds``: run every call
    on a lease this short, kept alive by heartbeats; ``tool_retry``: retries of retryable tool
    failures (None: the gate's advice; False: surface the first); ``compensators``: sagas' undo
    functions by tool name (also ``@gate.compensator("refund")``).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        wait: float = 5.0,
        max_wait: float = 60.0,
        lease_seconds: Optional[int] = None,
        heartbeat: bool = True,
        heartbeat_interval: Optional[float] = None,
        gate_retry: Backoff = DEFAULT_GATE_RETRY,
        tool_retry: Union[Backoff, bool, None] = None,
        classify_error: Callable[[BaseException], ToolErrorInfo] = to_tool_error_info,
        compensators: Optional[Mapping[str, Callable[[Any, ToolCall], Any]]] = None,
        timeout: float = 15.0,
        transport: Optional[HttpTransport] = None,
    ) -> None:
        if lease_seconds is not None and (not isinstance(lease_seconds, int) or lease_seconds < 1):
            raise ValueError("lease_seconds must be a whole number of seconds >= 1")
        self.transport = transport or HttpTransport(base_url, api_key, timeout=timeout)
        self.wait = min(10.0, max(0.0, wait))
        self.max_wait = max_wait
        self.lease_seconds = lease_seconds
        self.heartbeat = heartbeat
        self.heartbeat_interval = heartbeat_interval
        self.gate_retry = gate_retry
        self.tool_retry = tool_retry
        self.classify_error = classify_error
        self.compensators: dict[str, Callable[[Any, ToolCall], Any]] = dict(compensators or {})

    # -- run context -----------------------------------------------------------------------------
    run = staticmethod(_context.run)

    # -- calls -----------------------------------------------------------------------------------
    def call(self, spec: Spec, fn: Callable[[ToolCall], T], **options: Any) -> T:
        """Runs ``fn(tool_call)`` at most once per key and returns its value (now or replayed).
        Every other outcome raises: see ``idemgate.errors``. A tool's own exception propagates."""
        return self.call_result(spec, fn, **options).value

    def call_result(self, spec: Spec, fn: Callable[[ToolCall], T], **options: Any) -> CallResult[T]:
        """As ``call``, with how the value came: executed, replayed, verified or accepted."""
        if inspect.iscoroutinefunction(fn):
            raise TypeError("an async tool: use `await gate.acall(...)`")
        request = self._begin_request(Call.of(spec))
        return self._run(request, fn, _Options(**options), _sync_runner, self.transport.begin)

    async def acall(self, spec: Spec, fn: Callable[[ToolCall], Awaitable[T]], **options: Any) -> T:
        return (await self.acall_result(spec, fn, **options)).value

    async def acall_result(self, spec: Spec, fn: Callable[[ToolCall], Awaitable[T]], **options: Any) -> CallResult[T]:
        """The async form: the gate's HTTP and heartbeats run on a worker thread, the tool on this loop.
        A lost lease cancels the tool's task (and sets ``tool_call.cancelled``)."""
        request = self._begin_request(Call.of(spec))
        runner = _AsyncRunner(asyncio.get_running_loop())
        return await asyncio.to_thread(self._run, request, fn, _Options(**options), runner, self.transport.begin)

    def tool(
        self,
        name: Optional[Union[str, Callable[..., Any]]] = None,
        *,
        step: Optional[str] = None,
        scope: Union[str, list[str], Callable[[dict[str, Any]], str], None] = None,
        ignore_args: tuple[str, ...] = (),
        **options: Any,
    ) -> Any:
        """Decorates a plain function (sync or async) as a gated tool. The key comes from ``step``, the
        declared ``scope`` (an argument name: ``scope="order_id"`` -> ``order_id:<value>``; a list of
        names; or a function of the args) or else the canonical args, never the model's call id.
        Inside, ``current_tool_call().idempotency_key`` is the key to pass downstream."""
        if callable(name):
            return self.tool()(name)

        def decorate(fn: F) -> F:
            signature = inspect.signature(fn)
            tool_name = name or fn.__name__

            def spec_for(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Call:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                call_args: dict[str, Any] = {}
                for param, value in bound.arguments.items():
                    if param in ignore_args:
                        continue
                    if signature.parameters[param].kind is inspect.Parameter.VAR_KEYWORD:
                        call_args.update(value)
                    else:
                        call_args[param] = value
                return Call(tool=tool_name, step=step, scope=_scope_of(scope, call_args), args=call_args)

            if inspect.iscoroutinefunction(fn):

                @functools.wraps(fn)
                async def async_tool(*args: Any, **kwargs: Any) -> Any:
                    return await self.acall(spec_for(args, kwargs), lambda _call: fn(*args, **kwargs), **options)

                return async_tool  # type: ignore[return-value]

            @functools.wraps(fn)
            def sync_tool(*args: Any, **kwargs: Any) -> Any:
                return self.call(spec_for(args, kwargs), lambda _call: fn(*args, **kwargs), **options)

            return sync_tool  # type: ignore[return-value]

        return decorate

    # -- accepted operations, approvals ----------------------------------------------------------
    def finish_operation(self, call_id: str, operation_id: str, *, result: Any = None, error: Optional[Union[ToolErrorInfo, str]] = None) -> dict[str, Any]:
        """Records the final outcome of an accepted operation, from whoever holds its id (a job callback, a poller)."""
        if error is not None:
            info = error if isinstance(error, ToolErrorInfo) else ToolErrorInfo(str(error), False)
            body: dict[str, Any] = {"operationId": operation_id, "outcome": "failed", "error": info.to_wire()}
        else:
            body = {"operationId": operation_id, "outcome": "succeeded"}
            if result is not None:
                body["result"] = result
        return with_gate_retry(lambda: self.transport.complete(call_id, body), self.gate_retry)

    def status(self, call_id: str) -> dict[str, Any]:
        return with_gate_retry(lambda: self.transport.status(call_id), self.gate_retry)

    def wait_for_approval(self, request_id: str, *, timeout: float = 300.0) -> str:
        """Waits for an operator's decision on a resend request; returns its single-use bypass token
        (handed out once: pass it as ``bypass_token=``). Raises ``ApprovalDenied`` if it will never come."""
        deadline = time.monotonic() + timeout
        pause = _FIRST_PREVIEW_POLL
        while True:
            request = with_gate_retry(lambda: self.transport.resend_request(request_id), self.gate_retry)
            token = request.get("bypassToken")
            if token:
                return str(token)
            if request.get("status") != "pending":
                raise ApprovalDenied(request_id, str(request.get("status")), request.get("note"))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ApprovalRequired(request_id, self)
            sleep(min(pause, remaining))
            pause = min(pause * 2, _MAX_POLL)

    # -- sagas -----------------------------------------------------------------------------------
    def compensator(self, tool: str) -> Callable[[F], F]:
        """Registers ``fn(args, tool_call)`` as the undo run for compensation tool ``tool``."""

        def register(fn: F) -> F:
            self.compensators[tool] = fn
            return fn

        return register

    def abort(self, run_id: str, reason: str, *, compensators: Optional[Mapping[str, Callable[[Any, ToolCall], Any]]] = None) -> CompensationOutcome:
        """Aborts the run (idempotent); with compensators registered, runs its compensation plan too."""
        plan = with_gate_retry(lambda: self.transport.abort_run(run_id, reason), self.gate_retry)
        executors = {**self.compensators, **(compensators or {})}
        if not executors:
            return CompensationOutcome(plan["state"] == "compensated", plan["state"], plan)
        return self.compensate(run_id, compensators=compensators)

    def compensate(self, run_id: str, *, compensators: Optional[Mapping[str, Callable[[Any, ToolCall], Any]]] = None) -> CompensationOutcome:
        """Runs the run's compensation plan, each undo a gated call under ``<key>:compensate``; safe to run
        from several processes at once (the gate gives each step to one of them)."""
        executors = {**self.compensators, **(compensators or {})}
        while True:
            plan = with_gate_retry(lambda: self.transport.compensation_plan(run_id), self.gate_retry)
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
            call_id = step["callId"]

            def begin(req: Mapping[str, Any], call_id: str = call_id) -> dict[str, Any]:
                return self.transport.begin_compensation(run_id, call_id, req.get("waitMs"))

            undo_args = compensation.get("args")
            try:
                self._run(request, lambda tool_call: executor(undo_args, tool_call), _Options(), _sync_runner, begin)
            except LeaseLost:
                continue
            except Exception as error:  # noqa: BLE001 - the plan records what a permanent failure did
                info = error.error if isinstance(error, ToolFailed) else self.classify_error(error)
                if not info.retryable:
                    continue  # now on the plan as compensation_failed: one more read reports it
                now = with_gate_retry(lambda: self.transport.compensation_plan(run_id), self.gate_retry)
                return CompensationOutcome(False, now["state"], now, info)

    # -- the call's life -------------------------------------------------------------------------
    def _begin_request(self, spec: Call) -> dict[str, Any]:
        run = current_run()
        run_id = spec.run_id or (run.run_id if run else None)
        if not run_id:
            raise RuntimeError(f'gate.call("{spec.tool}") outside gate.run(): start a run or pass run_id')
        request: dict[str, Any] = {"tool": spec.tool, "runId": run_id}
        agent_id = spec.agent_id or (run.agent_id if run else None)
        for wire, value in (("stepId", spec.step), ("scope", spec.scope), ("toolCallId", spec.tool_call_id), ("agentId", agent_id), ("bypassToken", spec.bypass_token)):
            if value is not None:
                request[wire] = value
        if spec.args is not _UNSET:
            request["args"] = _as_json(spec.args, "args")
        if spec.bypass is not None:
            request["bypass"] = {"reason": spec.bypass}
        return request

    def _run(self, call_request: dict[str, Any], fn: Callable[[ToolCall], Any], options: _Options, runner: Runner, begin_fn: Begin) -> CallResult[Any]:
        request = dict(call_request)
        previewed = redeemed = False
        started = time.monotonic()
        max_wait = options.max_wait if options.max_wait is not None else self.max_wait
        advice = DEFAULT_TOOL_RETRY
        waits = failures = 0
        while True:
            remaining = max(0.0, max_wait - (time.monotonic() - started))
            wait_ms = int(min(self.wait, remaining) * 1000)
            begin = {**request, "waitMs": wait_ms} if wait_ms > 0 else request
            sent_at = time.monotonic()
            decision = with_gate_retry(lambda: begin_fn(begin), self.gate_retry)
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
                token = self._exchange_preview(request, options)
                if token is not None:
                    request["previewToken"] = token
                continue
            if kind == "approval_required" and "bypass" in request and not redeemed:
                # Asked again after an operator approved: the request's single-use token runs it once,
                # under the key's next generation. Still pending (or denied): ApprovalRequired.
                redeemed = True
                answer = with_gate_retry(lambda: self.transport.resend_request(decision["requestId"]), self.gate_retry)
                if answer.get("bypassToken"):
                    request.pop("bypass")
                    request["bypassToken"] = answer["bypassToken"]
                    continue
            if kind not in ("execute", "verify"):
                return self._terminal(decision)

            if kind == "execute":
                advice = Backoff.from_wire(decision.get("retry"), advice)
            # A claimed resend continues on its generation; a spent preview token previews afresh.
            request.pop("bypass", None)
            request.pop("bypassToken", None)
            if request.pop("previewToken", None) is not None:
                previewed = False
            try:
                return self._attempt(decision, fn, options, runner, request.get("args"))
            except _Retry as retry:
                failures += 1
                tool_retry = options.tool_retry if options.tool_retry is not None else self.tool_retry
                policy = None if tool_retry is False else tool_retry if isinstance(tool_retry, Backoff) else advice
                if policy is None or failures >= policy.max_attempts:
                    raise retry.cause from None
                sleep(max(policy.delay(failures - 1), retry.error.retry_after_seconds or 0))

    def _terminal(self, decision: Mapping[str, Any]) -> CallResult[Any]:
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
            raise ApprovalRequired(decision["requestId"], self)
        if kind == "preview_required":
            raise PreviewRequired(decision["key"], decision["mode"])
        if kind == "blocked":
            raise Blocked(decision["reason"], list(decision.get("pattern", [])), int(decision.get("repeats", 0)), decision.get("message"), decision.get("budget"))
        raise GateError("bad_response", f"unknown decision {kind!r}", False)

    def _attempt(self, claim: Mapping[str, Any], fn: Callable[[ToolCall], Any], options: _Options, runner: Runner, args: Any) -> CallResult[Any]:
        call_id, key, lease_token = claim["callId"], claim["key"], claim["leaseToken"]
        tool_call = ToolCall(key, call_id, claim["attempt"], claim.get("recovered", True) if claim["decision"] == "execute" else True)
        lease_seconds = options.lease_seconds if options.lease_seconds is not None else self.lease_seconds
        expires_at = parse_time(claim["leaseExpiresAt"])
        if lease_seconds is not None:
            # Our own lease length: the first beat sets it before the tool starts, later beats keep it.
            try:
                beat = with_gate_retry(lambda: self.transport.heartbeat(call_id, {"leaseToken": lease_token, "extendSeconds": lease_seconds}), self.gate_retry)
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
            Heartbeat(self.transport, call_id, lease_token, expires_at, lease_seconds, self.gate_retry, on_lost, self.heartbeat_interval).start()
            if self.heartbeat
            else None
        )
        value: Any = None
        verified = False
        unknown: Optional[str] = None
        failure: Optional[BaseException] = None
        check_outcome: Optional[str] = None
        try:
            with _context._in_tool_call(tool_call):
                found: Any = None
                if claim["decision"] == "verify" and options.check is not None:
                    found = runner(options.check, tool_call, args)
                    check_outcome = "found" if isinstance(found, Found) else "not_found" if isinstance(found, NotFound) or found is None else "unknown"
                    if isinstance(found, Unknown):
                        unknown = found.reason or "the status check could not tell"
                if claim["decision"] == "verify" and options.verify is not None and not isinstance(found, Found) and unknown is None:
                    found = runner(options.verify, tool_call)
                if isinstance(found, Found):
                    value, verified = found.value, True
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
                self.transport.report_check(call_id, {"leaseToken": lease_token, "outcome": "unknown", "reason": unknown[:2000]})
            except GateError:
                pass
            raise UnknownOutcome(call_id, key, unknown)

        body: dict[str, Any] = {"leaseToken": lease_token}
        if check_outcome in ("found", "not_found"):
            body["check"] = check_outcome
        not_stored: Optional[str] = None
        error_info: Optional[ToolErrorInfo] = None
        if failure is not None:
            error_info = (options.classify_error or self.classify_error)(failure)
            body.update(outcome="failed", error=error_info.to_wire())
            if tool_call._cost is not None:
                body["cost"] = tool_call._cost.to_wire()
        else:
            # A value found by verify ran on an earlier attempt, whose cost is that attempt's to report.
            cost = None if verified else _cost_of(value, options) or tool_call._cost
            if cost is not None:
                body["cost"] = cost.to_wire()
            if isinstance(value, Accepted):
                body.update(outcome="accepted", **value.to_wire())
            else:
                try:
                    value = _as_json(value, "the result")
                    body.update(outcome="succeeded", result=value)
                    if options.compensate is not None and not verified:
                        body["compensation"] = _compensation_wire(options.compensate(value))
                except TypeError as error:
                    not_stored = str(error)
                    body.update(outcome="succeeded")
        recorded = True
        try:
            with_gate_retry(lambda: self.transport.complete(call_id, body), self.gate_retry)
        except GateError as error:
            if error.code in ("lease_lost", "not_found"):
                raise LeaseLost(call_id, key, executed=True, value=value) from error
            if failure is None and "result" in body and not error.retryable and error.code in ("invalid_json", "invalid_input", "payload_too_large"):
                # The tool ran and the gate will never take this value: record the success without it,
                # or the lease lapses and the next begin runs the finished tool again.
                not_stored = str(error)
                bare = {k: v for k, v in body.items() if k not in ("result", "compensation")}
                try:
                    with_gate_retry(lambda: self.transport.complete(call_id, bare), self.gate_retry)
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

    def _exchange_preview(self, request: Mapping[str, Any], options: _Options) -> Optional[str]:
        """The agent's half of a preview: post the dry run with exactly the call's identity and args, and
        wait until its token is released (at once under ``required``, after an operator's approval under
        ``approve``). None: the preview was already spent, begin again without one."""
        assert options.preview is not None
        preview = options.preview(request.get("args"))
        if isinstance(preview, Mapping):
            preview = Preview(str(preview["summary"]), list(preview.get("affected", [])))
        body = {k: request[k] for k in ("tool", "runId", "stepId", "scope", "toolCallId", "agentId", "args") if k in request}
        body["preview"] = {"summary": preview.summary, "affected": list(preview.affected)}
        current = with_gate_retry(lambda: self.transport.create_preview(body), self.gate_retry)
        deadline = time.monotonic() + options.preview_timeout
        pause = _FIRST_PREVIEW_POLL
        while current.get("previewToken") is None:
            if current["status"] == "denied":
                raise PreviewDenied(current["previewId"], current.get("decisionNote"))
            if current["status"] == "used":
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise PreviewPending(current["previewId"])
            sleep(min(pause, remaining))
            pause = min(pause * 2, _MAX_POLL)
            preview_id = current["previewId"]
            current = with_gate_retry(lambda: self.transport.read_preview(preview_id), self.gate_retry)
        return str(current["previewToken"])


def _sync_runner(fn: Callable[..., Any], *args: Any) -> Any:
    value = fn(*args)
    if inspect.isawaitable(value):
        if hasattr(value, "close"):
            value.close()  # type: ignore[union-attr]
        raise TypeError("the tool returned an awaitable: use `await gate.acall(...)` (or decorate an async def)")
    return value


class _AsyncRunner:
    """Runs the tool (and verify/check) on the caller's event loop from the call's worker thread, in a
    copy of the worker's context (which carries the run and the tool call). ``cancel`` cancels it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._current: Optional[concurrent.futures.Future[Any]] = None
        self._lock = threading.Lock()
        self._cancelled = False

    def __call__(self, fn: Callable[..., Any], *args: Any) -> Any:
        value = fn(*args)
        if not inspect.isawaitable(value):
            return value

        async def awaited() -> Any:
            return await value

        future = asyncio.run_coroutine_threadsafe(awaited(), self._loop)
        with self._lock:
            self._current = future
            if self._cancelled:
                future.cancel()
        try:
            return future.result()
        finally:
            with self._lock:
                self._current = None

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._current is not None:
                self._current.cancel()


def _scope_of(scope: Union[str, list[str], Callable[[dict[str, Any]], str], None], args: dict[str, Any]) -> Optional[str]:
    if scope is None:
        return None
    if callable(scope):
        return str(scope(args))
    names = [scope] if isinstance(scope, str) else list(scope)
    missing = [n for n in names if n not in args]
    if missing:
        raise TypeError(f"scope names argument(s) {missing} that the tool does not take")
    return ",".join(f"{n}:{args[n]}" for n in names)


def _as_json(value: Any, what: str) -> Any:
    """The value as the gate stores and replays it: a fresh result has exactly a replay's shape."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise TypeError(f"{what} must be JSON (dict, list, str, number, bool, None): {error}") from None


def _cost_of(value: Any, options: _Options) -> Optional[Cost]:
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
        tool, args = spec["tool"], spec.get("args")
    else:
        tool, args = spec
    wire: dict[str, Any] = {"tool": tool}
    if args is not None:
        wire["args"] = args
    return wire
