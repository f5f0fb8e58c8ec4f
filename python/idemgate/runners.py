"""How a call runs the tool: in the caller's thread, or on the caller's event loop from a worker thread."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import threading
from typing import Any, Callable, Optional, TypeVar

R = TypeVar("R")


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


async def run_in_own_thread(loop: asyncio.AbstractEventLoop, fn: Callable[[], R]) -> R:
    """``fn`` on a new daemon thread, in a copy of this context; its outcome is awaited on ``loop``."""
    future: asyncio.Future[R] = loop.create_future()
    context = contextvars.copy_context()

    def settle(error: Optional[BaseException], value: Any) -> None:
        if future.done():  # the awaiting task was cancelled meanwhile
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def work() -> None:
        try:
            value, error = context.run(fn), None
        except BaseException as raised:  # noqa: BLE001 - handed to the awaiting task as is
            value, error = None, raised
        try:
            loop.call_soon_threadsafe(settle, error, value)
        except RuntimeError:
            pass  # the loop is closed: nobody is waiting any more

    threading.Thread(target=work, name="idemgate-call", daemon=True).start()
    return await future
