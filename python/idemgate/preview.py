"""Previews: the agent's half — post the call's dry run, wait for its token."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Mapping, Optional, cast

from .errors import PreviewDenied, PreviewPending
from .retry import sleep, with_gate_retry
from .types import Preview

if TYPE_CHECKING:  # pragma: no cover
    from .call import CallDeps, CallOptions

FIRST_POLL = 0.25
MAX_POLL = 2.0


def exchange_preview(deps: "CallDeps", request: Mapping[str, Any], options: "CallOptions") -> Optional[str]:
    """The agent's half of a preview: post the dry run with exactly the call's identity and args, and
    wait until its token is released (at once under ``required``, after an operator's approval under
    ``approve``). None: the preview was already spent, begin again without one."""
    assert options.preview is not None
    preview: Any = options.preview(request.get("args"))
    if isinstance(preview, Mapping):
        fields = cast("Mapping[str, Any]", preview)
        preview = Preview(str(fields["summary"]), [str(a) for a in fields.get("affected", [])])
    body = {k: request[k] for k in ("tool", "runId", "stepId", "scope", "toolCallId", "agentId", "args") if k in request}
    body["preview"] = {"summary": preview.summary, "affected": list(preview.affected)}
    current = with_gate_retry(lambda: deps.transport.create_preview(body), deps.gate_retry)
    deadline = time.monotonic() + options.preview_timeout
    pause = FIRST_POLL
    while current.get("previewToken") is None:
        if current["status"] == "denied":
            raise PreviewDenied(current["previewId"], current.get("decisionNote"))
        if current["status"] == "used":
            return None
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise PreviewPending(current["previewId"])
        sleep(min(pause, remaining))
        pause = min(pause * 2, MAX_POLL)
        preview_id = current["previewId"]
        current = with_gate_retry(lambda: deps.transport.read_preview(preview_id), deps.gate_retry)
    return str(current["previewToken"])
