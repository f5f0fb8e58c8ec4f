"""Every outcome of a gated call that is not a value, as a typed exception.

Two families: ``GateError`` (the gate could not answer; the SDK already retried what retrying can
help) and ``CallOutcome`` (the gate answered, and the answer is "do not run": in progress, refused,
blocked, waiting for a human, ...). A tool's own exception, raised now, propagates unchanged.
"""

from __future__ import annotations

import http.client
import socket
import urllib.error
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Optional

if TYPE_CHECKING:  # pragma: no cover
    from .gate import Gate


@dataclass(frozen=True)
class ToolErrorInfo:
    """A tool's failure as the gate stores it: permanent ones replay, retryable ones release the key."""

    message: str
    retryable: bool
    retry_after_seconds: Optional[int] = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"message": self.message[:10_000] or "tool failed", "retryable": self.retryable}
        if self.retry_after_seconds is not None:
            wire["retryAfterSeconds"] = self.retry_after_seconds
        return wire

    @staticmethod
    def from_wire(wire: Optional[Mapping[str, Any]]) -> "ToolErrorInfo":
        if not wire:
            return ToolErrorInfo("the tool failed", False)
        return ToolErrorInfo(str(wire.get("message", "the tool failed")), bool(wire.get("retryable", False)), wire.get("retryAfterSeconds"))


class IdemgateError(Exception):
    """Base of everything this SDK raises."""


class GateError(IdemgateError):
    """The gate could not answer. ``retryable``: whether the *same* request could succeed later."""

    def __init__(self, code: str, message: str, retryable: bool, *, status: Optional[int] = None, retry_after: Optional[float] = None, request_id: Optional[str] = None) -> None:
        super().__init__(message)
        self.code = code
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.request_id = request_id


class ToolError(Exception):
    """Raise from a tool to say explicitly whether retrying can help."""

    def __init__(self, message: str, *, retryable: bool, retry_after_seconds: Optional[int] = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after_seconds = retry_after_seconds


class CallOutcome(IdemgateError):
    """The gate answered, and the answer is not a value. ``call_id``/``key`` when the gate named them."""

    call_id: Optional[str] = None
    key: Optional[str] = None


class ToolFailed(CallOutcome):
    """The call failed: replayed from the gate (``replayed``), or a tool failure the SDK wraps."""

    def __init__(self, error: ToolErrorInfo, *, call_id: Optional[str], key: Optional[str], replayed: bool) -> None:
        super().__init__(error.message)
        self.error = error
        self.call_id = call_id
        self.key = key
        self.replayed = replayed


class InProgress(CallOutcome):
    """Another attempt holds a live lease and did not finish within ``max_wait``."""

    def __init__(self, call_id: str, key: str, waited: float) -> None:
        super().__init__(f"call {call_id} is in progress in another attempt (waited {waited:.1f} s)")
        self.call_id, self.key, self.waited = call_id, key, waited


class Refused(CallOutcome):
    """A duplicate under an ``onDuplicate: refuse`` policy: a structured "already done"."""

    def __init__(self, call_id: str, key: str, original: Mapping[str, Any]) -> None:
        super().__init__(f"already done ({original.get('status')} at {original.get('completedAt')})")
        self.call_id, self.key = call_id, key
        self.original_status: str = str(original.get("status"))
        self.completed_at: str = str(original.get("completedAt"))


class Conflict(CallOutcome):
    """Same key, different arguments, under ``onArgsMismatch: reject``."""

    def __init__(self, call_id: str, key: str) -> None:
        super().__init__(f"call {call_id} was made before with different arguments")
        self.call_id, self.key = call_id, key


class Blocked(CallOutcome):
    """The run was stopped: a loop of calls (``pattern``, ``repeats``) or a spent budget (``budget``)."""

    def __init__(self, reason: str, pattern: list[str], repeats: int, message: Optional[str], budget: Optional[Mapping[str, Any]]) -> None:
        super().__init__(message or f"blocked: {reason} ({' -> '.join(pattern)} x{repeats})")
        self.reason, self.pattern, self.repeats, self.budget = reason, pattern, repeats, budget


class ApprovalRequired(CallOutcome):
    """Running a completed call again needs an operator's approval of resend request ``request_id``.

    ``wait()`` blocks until an operator decides and returns the single-use bypass token; pass it as
    ``bypass_token=`` (or simply make the same call with ``bypass=`` again once approved).
    """

    def __init__(self, request_id: str, gate: Optional["Gate"] = None) -> None:
        super().__init__(f"approval required: resend request {request_id}")
        self.request_id = request_id
        self._gate = gate

    def wait(self, timeout: float = 300.0) -> str:
        if self._gate is None:
            raise RuntimeError("ApprovalRequired.wait needs the gate that raised it")
        return self._gate.wait_for_approval(self.request_id, timeout=timeout)


class ApprovalDenied(CallOutcome):
    """The operator denied the resend request (or it expired, or its token was already handed out)."""

    def __init__(self, request_id: str, status: str, note: Optional[str]) -> None:
        super().__init__(f"resend request {request_id} is {status}{': ' + note if note else ''}")
        self.request_id, self.status, self.note = request_id, status, note


class PreviewRequired(CallOutcome):
    """The tool's policy needs a preview (dry run) and the call gave no ``preview=`` callback."""

    def __init__(self, key: str, mode: str) -> None:
        super().__init__(f"this call needs a preview first (mode {mode})")
        self.key, self.mode = key, mode


class PreviewDenied(CallOutcome):
    def __init__(self, preview_id: str, note: Optional[str]) -> None:
        super().__init__(f"preview {preview_id} was denied{': ' + note if note else ''}")
        self.preview_id, self.note = preview_id, note


class PreviewPending(CallOutcome):
    """Still waiting for an operator to approve the preview when ``preview_timeout`` ran out."""

    def __init__(self, preview_id: str) -> None:
        super().__init__(f"preview {preview_id} waits for an operator's approval")
        self.preview_id = preview_id


class UnknownOutcome(CallOutcome):
    """The status check could not tell whether an earlier attempt took effect: left to an operator."""

    def __init__(self, call_id: str, key: str, reason: Optional[str]) -> None:
        super().__init__(reason or "the status check could not tell")
        self.call_id, self.key, self.reason = call_id, key, reason


class LeaseLost(CallOutcome):
    """Another attempt owns the call now: this attempt's outcome was not recorded.

    ``executed``: the tool ran in this attempt (its value, if any, in ``value``).
    """

    def __init__(self, call_id: str, key: str, *, executed: bool, value: Any = None) -> None:
        super().__init__(f"the lease on {call_id} was lost: another attempt owns the call now")
        self.call_id, self.key, self.executed, self.value = call_id, key, executed, value


_RETRYABLE_STATUSES = {408, 425, 429}


def is_retryable(error: BaseException, depth: int = 0) -> bool:
    """Whether a tool's exception is transient: it says so itself, or it is a timeout, a network error or HTTP 408/425/429/5xx."""
    if depth > 4:
        return False
    explicit = getattr(error, "retryable", None)
    if isinstance(explicit, bool):
        return explicit
    if isinstance(error, urllib.error.HTTPError):
        return error.code in _RETRYABLE_STATUSES or error.code >= 500
    status = getattr(error, "status", None) or getattr(error, "status_code", None)
    if isinstance(status, int):
        return status in _RETRYABLE_STATUSES or status >= 500
    if isinstance(error, (TimeoutError, socket.timeout, ConnectionError, http.client.RemoteDisconnected, urllib.error.URLError)):
        return True
    cause = error.__cause__ or error.__context__
    return cause is not None and is_retryable(cause, depth + 1)


def to_tool_error_info(error: BaseException) -> ToolErrorInfo:
    message = str(error) or type(error).__name__
    after = getattr(error, "retry_after_seconds", None)
    seconds = min(86_400, int(after + 0.999)) if isinstance(after, (int, float)) and after >= 0 else None
    return ToolErrorInfo(message[:10_000], is_retryable(error), seconds)
