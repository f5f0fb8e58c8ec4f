"""How a call runs the tool: in the caller's thread, or on the caller's event loop from a worker thread."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import threading
from typing import Any, Callable, Optional


def sync_runner(fn: Callable[..., Any], *args: Any) -> Any:
    value = fn(*args)
    if inspect.isawaitable(value):
        if hasattr(value, "close"):
            value.close()  # type: ignore[union-attr]
        raise TypeError("the tool returned an awaitable: use `await gate.acall(...)` (or decorate an async def)")
    return value


class AsyncRunner:
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
