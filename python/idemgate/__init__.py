"""Idemgate agent SDK: run a tool at most once per key, from any Python agent runtime.

    gate = Gate("http://localhost:3000", api_key)
    with gate.run(run_id="run-42"):
        @gate.tool(scope="order_id")
        def refund(order_id: str, amount: int) -> dict: ...
"""

from .context import Cost, RunContext, Thread, ToolCall, current_run, current_tool_call, in_context, run
from .errors import (
    ApprovalDenied,
    ApprovalRequired,
    Blocked,
    CallOutcome,
    Conflict,
    GateError,
    IdemgateError,
    InProgress,
    LeaseLost,
    PreviewDenied,
    PreviewPending,
    PreviewRequired,
    Refused,
    ToolError,
    ToolErrorInfo,
    ToolFailed,
    UnknownOutcome,
    is_retryable,
)
from .gate import Gate
from .retry import DEFAULT_GATE_RETRY, DEFAULT_TOOL_RETRY, Backoff
from .transport import HttpTransport
from .types import Accepted, Call, CallResult, Compensation, CompensationOutcome, Found, NotFound, Preview, Unknown

__version__ = "0.1.0"

__all__ = [
    "Accepted",
    "ApprovalDenied",
    "ApprovalRequired",
    "Backoff",
    "Blocked",
    "Call",
    "CallOutcome",
    "CallResult",
    "Compensation",
    "CompensationOutcome",
    "Conflict",
    "Cost",
    "DEFAULT_GATE_RETRY",
    "DEFAULT_TOOL_RETRY",
    "Found",
    "Gate",
    "GateError",
    "HttpTransport",
    "IdemgateError",
    "InProgress",
    "LeaseLost",
    "NotFound",
    "Preview",
    "PreviewDenied",
    "PreviewPending",
    "PreviewRequired",
    "Refused",
    "RunContext",
    "Thread",
    "ToolCall",
    "ToolError",
    "ToolErrorInfo",
    "ToolFailed",
    "Unknown",
    "UnknownOutcome",
    "current_run",
    "current_tool_call",
    "in_context",
    "is_retryable",
    "run",
]
