"""What the suites share: the gate under test (from the environment), its admin and operator APIs,
and a counting side-effect double — a downstream service that counts every request it gets.

The environment comes from test/integration/python-sdk.test.ts, which starts a real `npm start`
server per database: IDEMGATE_URL, IDEMGATE_API_KEY, IDEMGATE_PROJECT_ID, IDEMGATE_ADMIN_TOKEN
(policies) and IDEMGATE_OPERATOR_COOKIE (a signed-in operator's session, for approvals).
"""

from __future__ import annotations

import json
import os
import threading
import time
import unittest
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional

import idemgate
from idemgate import Backoff, Gate

ENV_NAMES = ("IDEMGATE_URL", "IDEMGATE_API_KEY", "IDEMGATE_PROJECT_ID", "IDEMGATE_ADMIN_TOKEN", "IDEMGATE_OPERATOR_COOKIE")
CONFIGURED = all(os.environ.get(name) for name in ENV_NAMES)
SKIP_REASON = f"needs a running gate: set {', '.join(ENV_NAMES)} (npm test does)"

#: Quick tool retries, so a retry test does not wait out the gate's 1 s advice.
FAST_RETRY = Backoff(3, 0.05, 2.0, 0.2)


def env(name: str) -> str:
    return os.environ[name]


def unique(label: str) -> str:
    return f"{label}_{uuid.uuid4().hex[:10]}"


def new_gate(**options: Any) -> Gate:
    return Gate(env("IDEMGATE_URL"), env("IDEMGATE_API_KEY"), **options)


def _request(method: str, path: str, body: Any = None, headers: Optional[dict[str, str]] = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(env("IDEMGATE_URL") + path, data=data, method=method, headers={"content-type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def put_policy(tool: str, policy: dict[str, Any]) -> None:
    """A tool's own policy layer, through the admin API."""
    path = f"/api/v1/admin/projects/{env('IDEMGATE_PROJECT_ID')}/policies/{urllib.request.quote(tool, safe='')}"
    _request("PUT", path, {"policy": policy, "reason": "python sdk tests"}, {"authorization": f"Bearer {env('IDEMGATE_ADMIN_TOKEN')}"})


def operator(method: str, rest: str, body: Any = None) -> Any:
    """The operator API as a signed-in operator's browser calls it (session cookie, Origin)."""
    path = f"/api/v1/operator/projects/{env('IDEMGATE_PROJECT_ID')}{rest}"
    return _request(method, path, body, {"cookie": env("IDEMGATE_OPERATOR_COOKIE"), "origin": env("IDEMGATE_URL")})


def raw_begin(request: dict[str, Any]) -> dict[str, Any]:
    """A begin straight over HTTP, as another agent (or a crashed one) would send it."""
    return _request("POST", "/api/v1/calls/begin", request, {"authorization": f"Bearer {env('IDEMGATE_API_KEY')}"})


def wait_until(condition: Callable[[], bool], budget: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + budget
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not reached within {budget} s")
        time.sleep(0.02)


class Double:
    """A downstream service (payments, email) that counts every effect it is asked for.

    POST /effects {"key": ..., ...} applies one effect (counted, whatever the key); GET /effects/<key>
    answers what was applied under that key (404 if nothing): what a tool's ``verify`` looks up.
    """

    def __init__(self) -> None:
        self.effects: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: Any) -> None:
                pass

            def _answer(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
                with double._lock:
                    effect = {"effectId": f"eff_{len(double.effects) + 1}", **body}
                    double.effects.append(effect)
                self._answer(200, effect)

            def do_GET(self) -> None:  # noqa: N802
                key = self.path.rsplit("/", 1)[-1]
                with double._lock:
                    found = [e for e in double.effects if e.get("key") == key]
                self._answer(200, found[0]) if found else self._answer(404, {"error": "not found"})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def apply(self, key: Optional[str], **fields: Any) -> dict[str, Any]:
        """A tool's side effect, over HTTP like a real one."""
        request = urllib.request.Request(f"{self.url}/effects", data=json.dumps({"key": key, **fields}).encode(), method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def count(self, **match: Any) -> int:
        with self._lock:
            return sum(1 for e in self.effects if all(e.get(k) == v for k, v in match.items()))

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@unittest.skipUnless(CONFIGURED, SKIP_REASON)
class GateTestCase(unittest.TestCase):
    """A test against the real gate, with a fresh counting double per test."""

    gate: Gate
    double: Double
    _defaults_set = False

    @classmethod
    def setUpClass(cls) -> None:
        # Suites repeat calls on purpose (replays, waits); the loop detector is on only where a test
        # turns it on for its own tool.
        if not GateTestCase._defaults_set and os.environ.get("IDEMGATE_DEFAULTS_SET") != "1":
            put_policy("*", {"loop": {"enabled": False}})
            GateTestCase._defaults_set = True

    def setUp(self) -> None:
        self.gate = new_gate(tool_retry=FAST_RETRY)
        self.double = Double()
        self.addCleanup(self.double.close)

    def run_id(self, label: str = "py") -> str:
        return unique(f"run_{label}")


__all__ = ["Double", "GateTestCase", "FAST_RETRY", "idemgate", "new_gate", "operator", "put_policy", "raw_begin", "unique", "wait_until"]
