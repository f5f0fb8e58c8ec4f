"""The run a call belongs to, and the gated call a tool is executing in, carried by contextvars.

asyncio tasks inherit both (a task copies the context it is created in). Threads do not before
Python 3.14's opt-in: start them with ``idemgate.Thread`` or wrap the target with
``idemgate.in_context(fn)`` (for executors: ``pool.submit(in_context(fn), ...)``), which is
``contextvars.copy_context().run`` done for you.
"""

from __future__ import annotations

import contextvars
import threading
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, TypeVar

R = TypeVar("R")


@dataclass(frozen=True)
class RunContext:
    """One user request handled by an agent; subagents share the root's ``run_id``."""

    run_id: str
    agent_id: str
    parent_agent_id: Optional[str] = None
    depth: int = 0
    _children: list[int] = field(default_factory=lambda: [0], repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def next_child(self) -> int:
        """The number of this run's next subagent (1, 2, ...)."""
        with self._lock:
            self._children[0] += 1
            return self._children[0]


@dataclass(frozen=True)
class Cost:
    """What one execution cost (budgets' ``maxCostPerRun``); ``currency`` is ISO 4217 (``USD``)."""

    amount: float
    currency: str

    def to_wire(self) -> dict[str, Any]:
        return {"amount": self.amount, "currency": self.currency}


@dataclass
class ToolCall:
    """The gated call a tool runs in: pass ``idempotency_key`` downstream as its own idempotency key."""

    idempotency_key: str
    call_id: str
    attempt: int
    #: True when an earlier attempt vanished (its lease expired) and this one took over.
    recovered: bool
    #: Set when the lease is lost (another attempt owns the call now): stop, the outcome will not count.
    cancelled: threading.Event = field(default_factory=threading.Event)
    #: What ``report_cost`` last reported.
    reported_cost: Optional[Cost] = field(default=None, repr=False)

    def report_cost(self, amount: float, currency: str) -> None:
        """Budgets: what this execution cost, sent with its complete (the last report wins)."""
        self.reported_cost = Cost(float(amount), currency)

    def raise_if_cancelled(self) -> None:
        if self.cancelled.is_set():
            from .errors import LeaseLost

            raise LeaseLost(self.call_id, self.idempotency_key, executed=True)


_run: contextvars.ContextVar[Optional[RunContext]] = contextvars.ContextVar("idemgate_run", default=None)
_tool_call: contextvars.ContextVar[Optional[ToolCall]] = contextvars.ContextVar("idemgate_tool_call", default=None)


def current_run() -> Optional[RunContext]:
    return _run.get()


def current_tool_call() -> Optional[ToolCall]:
    """The gated call this code runs in, if any: how a decorated tool reads the key to pass downstream."""
    return _tool_call.get()


@contextmanager
def run(run_id: Optional[str] = None, agent_id: Optional[str] = None) -> Iterator[RunContext]:
    """Runs the block as (part of) a run. Inside another run it is a subagent: it keeps the root's
    run_id and gets its own agent_id (``<parent>/<n>``), so a step the parent and a subagent both
    decide to take has one key."""
    parent = _run.get()
    if parent is not None:
        if run_id is not None and run_id != parent.run_id:
            raise ValueError(f'run_id "{run_id}" inside run "{parent.run_id}": a subagent shares its root\'s run_id; omit run_id')
        context = RunContext(parent.run_id, agent_id or f"{parent.agent_id}/{parent.next_child()}", parent.agent_id, parent.depth + 1)
    else:
        context = RunContext(run_id or f"run_{uuid.uuid4()}", agent_id or "main")
    token = _run.set(context)
    try:
        yield context
    finally:
        _run.reset(token)


@contextmanager
def in_tool_call(call: ToolCall) -> Iterator[ToolCall]:
    token = _tool_call.set(call)
    try:
        yield call
    finally:
        _tool_call.reset(token)


def in_context(fn: Callable[..., R]) -> Callable[..., R]:
    """``fn`` bound to a copy of the current context (run and tool call): for threads and executors."""
    captured = contextvars.copy_context()

    def bound(*args: Any, **kwargs: Any) -> R:
        # A fresh copy per call: one Context cannot be entered by two threads at once.
        return captured.copy().run(fn, *args, **kwargs)

    return bound


class Thread(threading.Thread):
    """A thread whose target runs in a copy of the creating thread's context (its run, its agent)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._idemgate_context = contextvars.copy_context()

    def run(self) -> None:
        self._idemgate_context.run(super().run)
