"""Keeps a lease alive while a tool runs, on a background thread (never the caller's event loop)."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import Callable, Optional

from .errors import GateError
from .retry import Backoff, with_gate_retry
from .transport import HttpTransport

_MIN_INTERVAL = 0.2


def parse_time(iso: str) -> float:
    """An ISO 8601 instant (the gate's ``...Z``) as epoch seconds."""
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


class Heartbeat:
    """One beat every third of the lease. ``on_lost`` runs (on the beat thread) when the gate answers
    that another attempt owns the call; beats stop then, and when ``stop()`` is called."""

    def __init__(
        self,
        transport: HttpTransport,
        call_id: str,
        lease_token: str,
        lease_expires_at: float,
        lease_seconds: Optional[int],
        retry: Backoff,
        on_lost: Callable[[GateError], None],
        interval: Optional[float] = None,
    ) -> None:
        self._transport = transport
        self._call_id = call_id
        self._request: dict[str, object] = {"leaseToken": lease_token}
        if lease_seconds is not None:
            self._request["extendSeconds"] = lease_seconds
        self._lease_seconds = lease_seconds
        self._expires_at = lease_expires_at
        self._retry = retry.with_(max_attempts=min(retry.max_attempts, 3))
        self._on_lost = on_lost
        self._fixed_interval = interval
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"idemgate-heartbeat-{call_id}", daemon=True)
        self.beats = 0

    def start(self) -> "Heartbeat":
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stops beating and waits for a beat in flight, so no beat lands after the complete."""
        self._stopped.set()
        if self._thread is not threading.current_thread():
            self._thread.join()

    def _interval(self) -> float:
        if self._fixed_interval is not None:
            return self._fixed_interval
        if self._lease_seconds is not None:
            return max(_MIN_INTERVAL, self._lease_seconds / 3)
        return max(_MIN_INTERVAL, (self._expires_at - time.time()) / 3)

    def _loop(self) -> None:
        wait = self._interval()
        while not self._stopped.wait(wait):
            # The cadence runs from when a beat was sent, not from when its answer came back: a slow
            # answer must not push the next beat past the lease the previous one bought.
            sent_at = time.monotonic()
            try:
                answer = with_gate_retry(lambda: self._transport.heartbeat(self._call_id, self._request), self._retry, self._stopped)
            except GateError as error:
                if self._stopped.is_set():
                    return
                if error.code in ("lease_lost", "not_found"):
                    self._stopped.set()
                    self._on_lost(error)
                    return
                # Unreachable for now: the lease is still ours until someone else claims it.
                wait = self._interval() / 2
                continue
            self.beats += 1
            granted = answer.get("leaseExpiresAt")
            if granted is None:
                return  # the attempt has completed: nothing left to keep alive
            self._expires_at = parse_time(granted)
            wait = max(0.0, sent_at + self._interval() - time.monotonic())
