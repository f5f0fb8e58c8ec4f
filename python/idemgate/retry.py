"""Backoff for transient gate errors and retryable tool failures."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Optional, TypeVar

from .errors import GateError

T = TypeVar("T")


@dataclass(frozen=True)
class Backoff:
    max_attempts: int
    initial_delay: float
    factor: float
    max_delay: float

    @staticmethod
    def from_wire(advice: Optional[Mapping[str, float]], fallback: "Backoff") -> "Backoff":
        if not advice:
            return fallback
        return Backoff(int(advice["maxAttempts"]), advice["initialDelayMs"] / 1000, float(advice["backoffFactor"]), advice["maxDelayMs"] / 1000)

    def delay(self, n: int) -> float:
        """Exponential with equal jitter: half the step fixed, half random. ``n`` counts from 0."""
        step = min(self.max_delay, self.initial_delay * self.factor ** max(0, n))
        return step / 2 + random.random() * step / 2

    def with_(self, **changes: float) -> "Backoff":
        return replace(self, **changes)  # type: ignore[arg-type]


#: DESIGN.md's default tool retry advice, used until the gate has sent its own.
DEFAULT_TOOL_RETRY = Backoff(3, 1.0, 2.0, 30.0)
#: Transient gate errors (network, 503, retryable bodies): quick, bounded retries of the same request.
DEFAULT_GATE_RETRY = Backoff(6, 0.1, 2.0, 2.0)
_MAX_RETRY_AFTER = 30.0


def sleep(seconds: float, cancelled: Optional[threading.Event] = None) -> None:
    if seconds <= 0:
        return
    if cancelled is None:
        time.sleep(seconds)
    else:
        cancelled.wait(seconds)


def with_gate_retry(send: Callable[[], T], backoff: Backoff, stop: Optional[threading.Event] = None) -> T:
    """Calls ``send`` until it succeeds or a non-retryable error. ``send`` closes over one request, so
    every retry sends exactly the same body: what makes retrying a begin or a complete safe."""
    attempt = 1
    while True:
        try:
            return send()
        except GateError as error:
            if not error.retryable or attempt >= backoff.max_attempts or (stop is not None and stop.is_set()):
                raise
            advised = min(error.retry_after or 0.0, _MAX_RETRY_AFTER)
            sleep(max(backoff.delay(attempt - 1), advised), stop)
            attempt += 1
