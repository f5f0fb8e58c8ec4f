"""What needs no gate: error classification, backoff, the run context, the decorator's shape, the
transport's failures, and the build backend's wheel."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import inspect
import os
import socket
import sys
import tempfile
import threading
import unittest
import urllib.error
import zipfile
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import idemgate
from idemgate import Backoff, Call, Gate, GateError, ToolError, current_run, in_context, is_retryable
from idemgate.errors import to_tool_error_info

HERE = os.path.dirname(os.path.abspath(__file__))


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Classification(unittest.TestCase):
    def test_what_is_retryable(self) -> None:
        http = lambda code: urllib.error.HTTPError("http://x", code, "x", None, None)  # noqa: E731
        retryable = [ToolError("x", retryable=True), TimeoutError(), ConnectionResetError(), http(503), http(429), http(408)]
        permanent = [ToolError("x", retryable=False), ValueError("bad"), http(400), http(404), KeyError("k")]
        self.assertEqual([is_retryable(e) for e in retryable], [True] * len(retryable))
        self.assertEqual([is_retryable(e) for e in permanent], [False] * len(permanent))
        try:
            try:
                raise ConnectionResetError()
            except ConnectionResetError as cause:
                raise RuntimeError("wrapped") from cause
        except RuntimeError as wrapped:
            self.assertTrue(is_retryable(wrapped), "the cause decides")

    def test_the_wire_form_of_a_failure(self) -> None:
        info = to_tool_error_info(ToolError("slow down", retryable=True, retry_after_seconds=2))
        self.assertEqual(info.to_wire(), {"message": "slow down", "retryable": True, "retryAfterSeconds": 2})
        self.assertEqual(to_tool_error_info(ValueError()).message, "ValueError")
        self.assertEqual(len(to_tool_error_info(ValueError("x" * 20_000)).message), 10_000)

    def test_backoff_has_equal_jitter_within_its_bounds(self) -> None:
        backoff = Backoff(5, 1.0, 2.0, 4.0)
        for n, (low, high) in enumerate([(0.5, 1.0), (1.0, 2.0), (2.0, 4.0), (2.0, 4.0)]):
            for _ in range(50):
                self.assertTrue(low <= backoff.delay(n) <= high)
        advised = Backoff.from_wire({"maxAttempts": 4, "initialDelayMs": 250, "backoffFactor": 3, "maxDelayMs": 9000}, backoff)
        self.assertEqual(advised, Backoff(4, 0.25, 3.0, 9.0))


class Context(unittest.TestCase):
    def test_runs_nest_as_subagents_and_end_with_their_block(self) -> None:
        self.assertIsNone(current_run())
        with idemgate.run(run_id="r1") as root:
            with idemgate.run() as a, idemgate.run() as b:
                pass
            with idemgate.run() as c:
                pass
        self.assertEqual((root.agent_id, a.agent_id, b.agent_id, c.agent_id), ("main", "main/1", "main/1/1", "main/2"))
        self.assertEqual({root.run_id, a.run_id, b.run_id, c.run_id}, {"r1"})
        self.assertIsNone(current_run())
        with idemgate.run() as fresh:
            self.assertTrue(fresh.run_id.startswith("run_"))

    def test_threads_need_the_helpers_and_tasks_do_not(self) -> None:
        seen: dict[str, Any] = {}
        with idemgate.run(run_id="r2"):
            t = idemgate.Thread(target=lambda: seen.setdefault("thread", current_run()))
            t.start()
            t.join()
            plain = threading.Thread(target=lambda: seen.setdefault("plain", current_run()))
            plain.start()
            plain.join()
            with ThreadPoolExecutor(2) as pool:
                seen["pool"] = pool.submit(in_context(current_run)).result()
                seen["pool_bare"] = pool.submit(current_run).result()

            async def main() -> Any:
                return await asyncio.gather(asyncio.create_task(asyncio.sleep(0, current_run())), asyncio.to_thread(current_run))

            seen["task"], seen["to_thread"] = asyncio.run(main())
        self.assertEqual({k: (v.run_id if v else None) for k, v in seen.items()}, {"thread": "r2", "plain": None, "pool": "r2", "pool_bare": None, "task": "r2", "to_thread": "r2"})


class Shape(unittest.TestCase):
    gate = Gate(f"http://127.0.0.1:{closed_port()}", "ig_test", gate_retry=Backoff(2, 0.01, 2.0, 0.02))

    def test_the_decorator_keeps_the_functions_name_signature_and_docstring(self) -> None:
        @self.gate.tool(scope=["order_id", "line"])
        def refund(order_id: str, line: int = 1, *, reason: str) -> dict[str, Any]:
            """Refund one order line."""
            return {}

        @self.gate.tool(name="lookup")
        async def fetch(q: str) -> str:
            return q

        self.assertEqual(refund.__name__, "refund")
        self.assertEqual(refund.__doc__, "Refund one order line.")
        self.assertEqual(str(inspect.signature(refund)), "(order_id: 'str', line: 'int' = 1, *, reason: 'str') -> 'dict[str, Any]'")
        self.assertTrue(inspect.iscoroutinefunction(fetch))

    def test_a_methods_receiver_is_left_out_of_the_args(self) -> None:
        sent: list[Any] = []
        gate = Gate("http://unused", "ig_test")
        gate.transport.begin = lambda request: sent.append(request) or {"decision": "conflict", "callId": "c", "key": "k"}  # type: ignore[method-assign]

        class Orders:
            @gate.tool(scope="order_id", ignore_args=("ctx",))
            def cancel(self, ctx: object, order_id: str) -> None: ...

        with idemgate.run(run_id="r"):
            with self.assertRaises(idemgate.Conflict):
                Orders().cancel(object(), "A-1")
        self.assertEqual(sent, [{"tool": "cancel", "runId": "r", "scope": "order_id:A-1", "agentId": "main", "args": {"order_id": "A-1"}, "waitMs": 5000}])

    def test_a_scope_that_names_no_argument_is_a_TypeError_before_anything_is_sent(self) -> None:
        @self.gate.tool(scope="orderId")
        def refund(order_id: str) -> None: ...

        with idemgate.run():
            with self.assertRaisesRegex(TypeError, "orderId"):
                refund("A-1")

    def test_an_async_function_given_to_the_sync_call_is_refused_before_anything_is_sent(self) -> None:
        async def tool(_call: Any) -> None: ...

        with idemgate.run():
            with self.assertRaisesRegex(TypeError, "acall"):
                self.gate.call(Call("t", step="s"), tool)

    def test_args_that_are_not_json_are_a_TypeError(self) -> None:
        with idemgate.run():
            with self.assertRaisesRegex(TypeError, "args must be JSON"):
                self.gate.call(Call("t", args={"when": object()}), lambda _c: None)

    def test_an_unreachable_gate_is_a_retryable_network_GateError_after_the_retries(self) -> None:
        with idemgate.run():
            with self.assertRaises(GateError) as raised:
                self.gate.call({"tool": "t", "step": "s"}, lambda _c: self.fail("must not run"))
        self.assertEqual((raised.exception.code, raised.exception.retryable), ("network", True))


class Transport(unittest.TestCase):
    def test_a_proxys_html_error_page_is_a_bad_response_judged_by_its_status(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length", "0")))
                status = 502 if self.path.endswith("/begin") else 404
                self.send_response(status)
                self.send_header("content-length", "13")
                self.end_headers()
                self.wfile.write(b"<html>..</html>"[:13])

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        transport = idemgate.HttpTransport(f"http://127.0.0.1:{server.server_address[1]}", "ig_test")
        with self.assertRaises(GateError) as bad_gateway:
            transport.begin({"tool": "t", "runId": "r"})
        with self.assertRaises(GateError) as not_found:
            transport.complete("call_1", {"leaseToken": "x", "outcome": "succeeded"})
        self.assertEqual((bad_gateway.exception.code, bad_gateway.exception.retryable, bad_gateway.exception.status), ("bad_response", True, 502))
        self.assertEqual((not_found.exception.code, not_found.exception.retryable), ("bad_response", False))


class BuildBackend(unittest.TestCase):
    def test_the_wheel_holds_the_package_and_py_typed_with_a_true_record(self) -> None:
        sys.path.insert(0, os.path.join(HERE, "..", "_build"))
        try:
            import idemgate_build
        finally:
            sys.path.pop(0)
        with tempfile.TemporaryDirectory() as out:
            name = idemgate_build.build_wheel(out)
            self.assertEqual(name, f"idemgate-{idemgate.__version__}-py3-none-any.whl")
            with zipfile.ZipFile(os.path.join(out, name)) as wheel:
                names = set(wheel.namelist())
                self.assertTrue({"idemgate/__init__.py", "idemgate/gate.py", "idemgate/py.typed"} <= names)
                self.assertFalse(any("tests" in n for n in names))
                record = wheel.read(f"idemgate-{idemgate.__version__}.dist-info/RECORD").decode().splitlines()
                for line in record:
                    path, digest, size = line.rsplit(",", 2)
                    if digest:
                        data = wheel.read(path)
                        self.assertEqual(digest, "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode())
                        self.assertEqual(int(size), len(data))
                metadata = wheel.read(f"idemgate-{idemgate.__version__}.dist-info/METADATA").decode()
                self.assertIn("Requires-Python: >=3.10", metadata)
                self.assertNotIn("Requires-Dist", metadata, "no runtime dependencies")


if __name__ == "__main__":
    unittest.main()
