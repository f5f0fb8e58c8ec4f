"""The gate client: the public face of a gated call (call.py), sagas (sagas.py) and resends."""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from typing import Any, Awaitable, Callable, Mapping, Optional, TypeVar, Union

from . import context as _context
from .call import CallDeps, CallOptions, as_json, run_call
from .context import ToolCall, current_run
from .errors import ApprovalDenied, ApprovalRequired, ToolErrorInfo, to_tool_error_info
from .preview import FIRST_POLL, MAX_POLL
from .retry import DEFAULT_GATE_RETRY, Backoff, sleep, with_gate_retry
from .runners import AsyncRunner, run_in_own_thread, sync_runner
from .sagas import Compensator, run_compensation
from .transport import HttpTransport
from .types import UNSET, Call, CallResult, CompensationOutcome

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
Spec = Union[Call, Mapping[str, Any]]


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
        compensators: Optional[Mapping[str, Compensator]] = None,
        timeout: float = 15.0,
        transport: Optional[HttpTransport] = None,
    ) -> None:
        if lease_seconds is not None and (int(lease_seconds) != lease_seconds or lease_seconds < 1):
            raise ValueError("lease_seconds must be a whole number of seconds >= 1")
        self.transport = transport or HttpTransport(base_url, api_key, timeout=timeout)
        self.compensators: dict[str, Compensator] = dict(compensators or {})
        self._deps = CallDeps(self.transport, gate_retry, min(10.0, max(0.0, wait)), max_wait, lease_seconds, heartbeat, heartbeat_interval, tool_retry, classify_error, self)

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
        return run_call(self._deps, request, fn, CallOptions(**options), sync_runner, self.transport.begin)

    async def acall(self, spec: Spec, fn: Callable[[ToolCall], Awaitable[T]], **options: Any) -> T:
        return (await self.acall_result(spec, fn, **options)).value

    async def acall_result(self, spec: Spec, fn: Callable[[ToolCall], Awaitable[T]], **options: Any) -> CallResult[T]:
        """The async form: the gate's HTTP and heartbeats run on a worker thread, the tool on this loop.
        A lost lease cancels the tool's task (and sets ``tool_call.cancelled``)."""
        request = self._begin_request(Call.of(spec))
        loop = asyncio.get_running_loop()
        runner = AsyncRunner(loop)
        call = functools.partial(run_call, self._deps, request, fn, CallOptions(**options), runner, self.transport.begin)
        # A thread of its own, not asyncio's default executor (a few threads on a small machine): a
        # tool that awaits a gated call of its own would wait for a thread its caller holds.
        return await run_in_own_thread(loop, call)

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
                for index, (param, value) in enumerate(bound.arguments.items()):
                    # A method's receiver is not an argument of the call.
                    if param in ignore_args or (index == 0 and param in ("self", "cls")):
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
        return with_gate_retry(lambda: self.transport.complete(call_id, body), self._deps.gate_retry)

    def status(self, call_id: str) -> dict[str, Any]:
        return with_gate_retry(lambda: self.transport.status(call_id), self._deps.gate_retry)

    def wait_for_approval(self, request_id: str, *, timeout: float = 300.0) -> str:
        """Waits for an operator's decision on a resend request; returns its single-use bypass token
        (handed out once: pass it as ``bypass_token=``). Raises ``ApprovalDenied`` if it will never come."""
        deadline = time.monotonic() + timeout
        pause = FIRST_POLL
        while True:
            request = with_gate_retry(lambda: self.transport.resend_request(request_id), self._deps.gate_retry)
            token = request.get("bypassToken")
            if token:
                return str(token)
            if request.get("status") != "pending":
                raise ApprovalDenied(request_id, str(request.get("status")), request.get("note"))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ApprovalRequired(request_id, self)
            sleep(min(pause, remaining))
            pause = min(pause * 2, MAX_POLL)

    # -- sagas -----------------------------------------------------------------------------------
    def compensator(self, tool: str) -> Callable[[F], F]:
        """Registers ``fn(args, tool_call)`` as the undo run for compensation tool ``tool``."""

        def register(fn: F) -> F:
            self.compensators[tool] = fn
            return fn

        return register

    def abort(self, run_id: str, reason: str = "aborted by the agent", *, compensators: Optional[Mapping[str, Compensator]] = None) -> CompensationOutcome:
        """Aborts the run (idempotent); with compensators registered, runs its compensation plan too."""
        plan = with_gate_retry(lambda: self.transport.abort_run(run_id, reason), self._deps.gate_retry)
        executors = {**self.compensators, **(compensators or {})}
        if not executors:
            return CompensationOutcome(plan["state"] == "compensated", plan["state"], plan)
        return self.compensate(run_id, compensators=compensators)

    def compensate(self, run_id: str, *, compensators: Optional[Mapping[str, Compensator]] = None) -> CompensationOutcome:
        """Runs the run's compensation plan, each undo a gated call under ``<key>:compensate``; safe to run
        from several processes at once (the gate gives each step to one of them)."""
        return run_compensation(self._deps, run_id, {**self.compensators, **(compensators or {})})

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
        if spec.args is not UNSET:
            request["args"] = as_json(spec.args, "args")
        if spec.bypass is not None:
            request["bypass"] = {"reason": spec.bypass}
        return request


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
