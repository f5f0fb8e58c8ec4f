"""The gate's agent API over HTTP (urllib, standard library only)."""

from __future__ import annotations

import http.client
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Mapping, Optional, cast

from .errors import GateError

DEFAULT_TIMEOUT = 15.0
_TRANSIENT = {408, 429}


def _quote(part: str) -> str:
    return urllib.parse.quote(part, safe="")


class HttpTransport:
    """One method per agent endpoint (DESIGN.md); answers are JSON dicts in the wire's camelCase.

    Raises ``GateError``: ``network``/``timeout`` (retryable: nothing or something reached the gate,
    and the same request again is safe), or the gate's own error code with its ``retryable`` flag.
    """

    def __init__(self, base_url: str, api_key: str, *, timeout: float = DEFAULT_TIMEOUT, user_agent: str = "idemgate-python/0.1") -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.timeout = timeout
        self._user_agent = user_agent

    # -- calls -----------------------------------------------------------------------------------
    def begin(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.send("POST", "/api/v1/calls/begin", request, timeout=self.timeout + request.get("waitMs", 0) / 1000)

    def complete(self, call_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.send("POST", f"/api/v1/calls/{_quote(call_id)}/complete", request)

    def heartbeat(self, call_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.send("POST", f"/api/v1/calls/{_quote(call_id)}/heartbeat", request)

    def report_check(self, call_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.send("POST", f"/api/v1/calls/{_quote(call_id)}/check", request)

    def status(self, call_id: str) -> dict[str, Any]:
        return self.send("GET", f"/api/v1/calls/{_quote(call_id)}")

    # -- resends and previews --------------------------------------------------------------------
    def resend_request(self, request_id: str) -> dict[str, Any]:
        return self.send("GET", f"/api/v1/resend-requests/{_quote(request_id)}")

    def create_preview(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.send("POST", "/api/v1/calls/preview", request)

    def read_preview(self, preview_id: str) -> dict[str, Any]:
        return self.send("GET", f"/api/v1/previews/{_quote(preview_id)}")

    # -- sagas -----------------------------------------------------------------------------------
    def abort_run(self, run_id: str, reason: str) -> dict[str, Any]:
        return self.send("POST", f"/api/v1/runs/{_quote(run_id)}/abort", {"reason": reason})

    def compensation_plan(self, run_id: str) -> dict[str, Any]:
        return self.send("GET", f"/api/v1/runs/{_quote(run_id)}/compensation")

    def begin_compensation(self, run_id: str, call_id: str, wait_ms: Optional[int] = None) -> dict[str, Any]:
        body = {} if wait_ms is None else {"waitMs": wait_ms}
        path = f"/api/v1/runs/{_quote(run_id)}/compensations/{_quote(call_id)}/begin"
        return self.send("POST", path, body, timeout=self.timeout + (wait_ms or 0) / 1000)

    # -- the wire --------------------------------------------------------------------------------
    def send(self, method: str, path: str, body: Optional[Mapping[str, Any]] = None, *, timeout: Optional[float] = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        headers = {"authorization": f"Bearer {self._api_key}", "accept": "application/json", "user-agent": self._user_agent}
        if data is not None:
            headers["content-type"] = "application/json"
        request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        what = f"{method} {path}"
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.timeout) as response:
                status, raw, retry_after = response.status, response.read(), response.headers.get("retry-after")
        except urllib.error.HTTPError as error:
            status, retry_after = error.code, error.headers.get("retry-after") if error.headers else None
            try:
                raw = error.read()
            except (OSError, http.client.HTTPException):
                raw = b""
        except (TimeoutError, socket.timeout) as error:
            raise GateError("timeout", f"{what}: no answer in {timeout or self.timeout:.0f} s", True) from error
        except urllib.error.URLError as error:
            if isinstance(error.reason, (TimeoutError, socket.timeout)):
                raise GateError("timeout", f"{what}: no answer in {timeout or self.timeout:.0f} s", True) from error
            raise GateError("network", f"{what}: {error.reason}", True) from error
        except (OSError, http.client.HTTPException) as error:
            # A connection reset or closed before (or while) the answer came: the same request again is safe.
            raise GateError("network", f"{what}: {type(error).__name__}: {error}", True) from error
        try:
            parsed: Any = json.loads(raw.decode("utf-8")) if raw else None
        except (UnicodeDecodeError, ValueError) as error:
            raise GateError("bad_response", f"{what}: HTTP {status} without a JSON body", 200 <= status < 300 or status in _TRANSIENT or status >= 500, status=status) from error
        if 200 <= status < 300:
            if not isinstance(parsed, dict):
                raise GateError("bad_response", f"{what}: the answer is not a JSON object", False, status=status)
            return cast("dict[str, Any]", parsed)
        raise _gate_error(what, status, parsed, retry_after)


def _gate_error(what: str, status: int, body: Any, retry_after_header: Optional[str]) -> GateError:
    transient = status in _TRANSIENT or status >= 500
    error: Any = cast("dict[str, Any]", body).get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or "code" not in error:
        return GateError("bad_response", f"{what}: HTTP {status}", transient, status=status)
    error = cast("dict[str, Any]", error)
    seconds: Any = error.get("retryAfterSeconds")
    if seconds is None and retry_after_header:
        try:
            seconds = float(retry_after_header)
        except ValueError:
            seconds = None
    return GateError(
        str(error["code"]),
        f"{what}: {error.get('message', '')}",
        bool(error.get("retryable", transient)),
        status=status,
        retry_after=float(seconds) if seconds is not None else None,
        request_id=error.get("requestId"),
    )
