"""Every decision the gate answers, as the Python SDK maps it: a value or a typed exception."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from support import Double, GateTestCase, env, idemgate, new_gate, operator, put_policy, raw_begin, unique, wait_until

from idemgate import (
    Accepted,
    ApprovalDenied,
    ApprovalRequired,
    Blocked,
    Call,
    Conflict,
    Found,
    InProgress,
    NotFound,
    Preview,
    PreviewDenied,
    PreviewRequired,
    Refused,
    ToolError,
    ToolFailed,
    Unknown,
    UnknownOutcome,
)


class ExecuteAndReplay(GateTestCase):
    def test_execute_then_replay_returns_the_stored_value_without_running(self) -> None:
        def charge(tool_call: idemgate.ToolCall) -> dict[str, Any]:
            return self.double.apply(tool_call.idempotency_key, amount=42)

        with self.gate.run(run_id=self.run_id()):
            first = self.gate.call_result(Call("charge_card", step="charge", args={"amount": 42}), charge)
            again = self.gate.call_result(Call("charge_card", step="charge", args={"amount": 42}), charge)
        self.assertEqual((first.status, first.attempt, first.recovered), ("executed", 1, False))
        self.assertEqual(again.status, "replayed")
        self.assertEqual(again.value, first.value)
        self.assertEqual(again.replays, 1)
        self.assertEqual(self.double.count(), 1)
        self.assertEqual(first.value["key"], first.key, "the tool got the gate's key to pass downstream")

    def test_the_decorator_keys_on_the_declared_scope_not_on_paraphrased_args(self) -> None:
        @self.gate.tool(scope="order_id")
        def refund(order_id: str, reason: str) -> dict[str, Any]:
            key = idemgate.current_tool_call().idempotency_key  # type: ignore[union-attr]
            return self.double.apply(key, order=order_id, reason=reason)

        with self.gate.run(run_id=self.run_id()):
            one = refund("A-1", reason="item arrived broken")
            two = refund("A-1", reason="the customer says it was damaged")
            other = refund(order_id="B-2", reason="item arrived broken")
        self.assertEqual(one, two)
        self.assertNotEqual(one["key"], other["key"])
        self.assertEqual(self.double.count(order="A-1"), 1)
        self.assertEqual(self.double.count(order="B-2"), 1)

    def test_without_step_or_scope_the_canonical_args_are_the_identity(self) -> None:
        @self.gate.tool
        def send_email(to: str, subject: str) -> str:
            self.double.apply(idemgate.current_tool_call().idempotency_key, to=to)  # type: ignore[union-attr]
            return "sent"

        with self.gate.run(run_id=self.run_id()):
            send_email("a@b.c", "hello")
            send_email(subject="hello", to="a@b.c")  # the same args, another order
            send_email("a@b.c", "a different email")
        self.assertEqual(self.double.count(to="a@b.c"), 2)

    def test_a_permanent_failure_raises_the_tools_own_error_now_and_ToolFailed_on_replay(self) -> None:
        calls = []

        def fails(_tool_call: idemgate.ToolCall) -> None:
            calls.append(1)
            raise ValueError("card declined")

        spec = Call("charge_card", step="declined", args={"amount": 1})
        with self.gate.run(run_id=self.run_id()):
            with self.assertRaisesRegex(ValueError, "card declined"):
                self.gate.call(spec, fails)
            with self.assertRaises(ToolFailed) as replayed:
                self.gate.call(spec, fails)
        self.assertTrue(replayed.exception.replayed)
        self.assertEqual(replayed.exception.error.message, "card declined")
        self.assertFalse(replayed.exception.error.retryable)
        self.assertEqual(len(calls), 1)

    def test_a_retryable_failure_releases_the_key_and_the_sdk_runs_it_again_on_the_same_key(self) -> None:
        keys: list[str] = []

        def flaky(tool_call: idemgate.ToolCall) -> str:
            keys.append(tool_call.idempotency_key)
            if len(keys) == 1:
                raise ToolError("upstream timed out", retryable=True)
            return "done"

        with self.gate.run(run_id=self.run_id()):
            result = self.gate.call_result(Call("flaky_tool", step="s", args={}), flaky)
        self.assertEqual((result.status, result.value, result.attempt), ("executed", "done", 2))
        self.assertEqual(len(set(keys)), 1)

    def test_a_result_that_is_not_json_is_recorded_without_it_and_never_runs_twice(self) -> None:
        calls = []

        def opaque(_tool_call: idemgate.ToolCall) -> object:
            calls.append(1)
            return object()

        spec = Call("opaque_tool", step="s", args={})
        with self.gate.run(run_id=self.run_id()):
            first = self.gate.call_result(spec, opaque)
            again = self.gate.call_result(spec, opaque)
        self.assertIsNotNone(first.result_not_stored)
        self.assertEqual((again.status, again.value), ("replayed", None))
        self.assertEqual(len(calls), 1)

    def test_outside_a_run_a_call_is_refused_before_anything_is_sent(self) -> None:
        with self.assertRaisesRegex(RuntimeError, "outside gate.run"):
            self.gate.call(Call("t", step="s"), lambda _c: 1)


class Waiting(GateTestCase):
    def test_in_progress_waits_for_the_live_attempt_and_replays_its_outcome(self) -> None:
        run_id = self.run_id()
        started, release = threading.Event(), threading.Event()
        results: dict[str, Any] = {}

        def slow(tool_call: idemgate.ToolCall) -> dict[str, Any]:
            started.set()
            release.wait(30)
            return self.double.apply(tool_call.idempotency_key)

        def first() -> None:
            with self.gate.run(run_id=run_id):
                results["first"] = self.gate.call_result(Call("slow_tool", step="s"), slow)

        thread = threading.Thread(target=first)
        thread.start()
        self.assertTrue(started.wait(30))
        waiter = threading.Thread(target=lambda: results.setdefault("second", self.gate.call_result(Call("slow_tool", step="s", run_id=run_id), slow)))
        waiter.start()
        time.sleep(0.3)  # let the second call reach the gate and latch on; it must not run the tool
        release.set()
        thread.join(30)
        waiter.join(30)
        self.assertEqual(results["first"].status, "executed")
        self.assertEqual(results["second"].status, "replayed")
        self.assertEqual(results["second"].value, results["first"].value)
        self.assertEqual(self.double.count(), 1)

    def test_in_progress_raises_InProgress_when_max_wait_runs_out(self) -> None:
        run_id = self.run_id()
        held = raw_begin({"tool": "held_tool", "runId": run_id, "stepId": "s"})
        self.assertEqual(held["decision"], "execute")
        with self.gate.run(run_id=run_id):
            with self.assertRaises(InProgress) as raised:
                self.gate.call(Call("held_tool", step="s"), lambda _c: self.fail("must not run"), max_wait=0.5)
        self.assertEqual(raised.exception.call_id, held["callId"])
        self.assertGreaterEqual(raised.exception.waited, 0.4)


class Verify(GateTestCase):
    """Attempts that vanished (a crash) under `effect: async`: the next call is answered verify."""

    tool = unique("async_job")
    claims: dict[str, dict[str, Any]] = {}
    run_ids: dict[str, str] = {}
    downstream: Double

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        put_policy(cls.tool, {"effect": "async", "leaseSeconds": 1, "leaseGraceSeconds": 0})
        cls.downstream = Double()
        # One wait for every test's lapsed lease: the attempts begin together, two apply their effect.
        for step in ("found", "lost", "unsure", "not_found"):
            cls.run_ids[step] = unique("run_verify")
            claim = raw_begin({"tool": cls.tool, "runId": cls.run_ids[step], "stepId": step})
            assert claim["decision"] == "execute", claim
            if step in ("found", "unsure"):
                cls.downstream.apply(claim["key"], job=step)
            cls.claims[step] = claim
        latest = max(idemgate.heartbeat.parse_time(c["leaseExpiresAt"]) for c in cls.claims.values())
        wait_until(lambda: time.time() > latest + 0.05, what="the vanished attempts' leases to lapse")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.downstream.close()

    def call(self, step: str, fn: Any, **options: Any) -> Any:
        return self.gate.call_result(Call(self.tool, step=step, run_id=self.run_ids[step]), fn, **options)

    def test_verify_finds_the_effect_by_key_and_completes_with_it_without_running(self) -> None:
        def verify(tool_call: idemgate.ToolCall) -> Any:
            with urllib.request.urlopen(f"{self.downstream.url}/effects/{tool_call.idempotency_key}") as response:
                return Found(json.loads(response.read()))

        result = self.call("found", lambda _c: self.fail("must not run"), verify=verify)
        replay = self.call("found", lambda _c: self.fail("must not run"))
        self.assertEqual((result.status, result.key), ("verified", self.claims["found"]["key"]))
        self.assertEqual(replay.value, result.value)
        self.assertEqual(self.downstream.count(job="found"), 1)

    def test_verify_that_finds_nothing_runs_the_tool_under_the_same_key(self) -> None:
        result = self.call("lost", lambda c: self.downstream.apply(c.idempotency_key, job="lost"), verify=lambda _c: None)
        self.assertEqual((result.status, result.value["key"]), ("executed", self.claims["lost"]["key"]))
        self.assertEqual(self.downstream.count(job="lost"), 1)

    def test_check_unknown_runs_nothing_and_raises_UnknownOutcome(self) -> None:
        with self.assertRaises(UnknownOutcome) as raised:
            self.call("unsure", lambda _c: self.fail("must not run"), check=lambda _c, _a: Unknown("the ledger is down"))
        self.assertEqual(raised.exception.reason, "the ledger is down")
        self.assertEqual(self.downstream.count(job="unsure"), 1)

    def test_check_not_found_runs_the_tool(self) -> None:
        result = self.call("not_found", lambda c: "ran", check=lambda _c, _a: NotFound())
        self.assertEqual((result.status, result.value), ("executed", "ran"))


class Policies(GateTestCase):
    def test_refused_under_onDuplicate_refuse(self) -> None:
        tool = unique("refusing")
        put_policy(tool, {"onDuplicate": "refuse"})
        with self.gate.run(run_id=self.run_id()):
            self.gate.call(Call(tool, step="s"), lambda _c: "once")
            with self.assertRaises(Refused) as raised:
                self.gate.call(Call(tool, step="s"), lambda _c: self.fail("must not run"))
        self.assertEqual(raised.exception.original_status, "succeeded")

    def test_conflict_under_onArgsMismatch_reject(self) -> None:
        tool = unique("strict")
        put_policy(tool, {"onArgsMismatch": "reject"})
        with self.gate.run(run_id=self.run_id()):
            self.gate.call(Call(tool, step="s", args={"amount": 1}), lambda _c: "once")
            with self.assertRaises(Conflict):
                self.gate.call(Call(tool, step="s", args={"amount": 2}), lambda _c: self.fail("must not run"))

    def test_blocked_when_the_run_loops(self) -> None:
        tool = unique("looping")
        put_policy(tool, {"loop": {"enabled": True, "repeats": 3, "maxCycleLength": 1, "action": "block"}})
        runs = []
        with self.gate.run(run_id=self.run_id()):
            with self.assertRaises(Blocked) as raised:
                for _ in range(6):
                    self.gate.call(Call(tool, args={"q": "same"}), lambda _c: runs.append(1))
        self.assertEqual(raised.exception.reason, "loop_detected")
        self.assertEqual(len(runs), 1)

    def test_budgets_count_reported_costs_and_block_past_the_limit(self) -> None:
        tool = unique("paid_api")
        put_policy(tool, {"budget": {"maxCostPerRun": 1.0, "currency": "USD", "costPerExecution": 0}})

        def paid(tool_call: idemgate.ToolCall) -> str:
            tool_call.report_cost(0.6, "USD")
            return "answer"

        with self.gate.run(run_id=self.run_id()):
            self.gate.call(Call(tool, step="one"), paid)
            self.gate.call(Call(tool, step="two"), lambda _c: "answer", cost=lambda _r: (0.6, "USD"))
            with self.assertRaises(Blocked) as raised:
                self.gate.call(Call(tool, step="three"), paid)
        self.assertEqual(raised.exception.reason, "budget_exceeded")
        assert raised.exception.budget is not None
        self.assertAlmostEqual(raised.exception.budget["spent"], 1.2)


class Previews(GateTestCase):
    def test_preview_required_without_a_dry_run_raises_and_with_one_runs_once(self) -> None:
        tool = unique("drop_table")
        put_policy(tool, {"preview": "required"})
        seen: list[Any] = []
        with self.gate.run(run_id=self.run_id()):
            with self.assertRaises(PreviewRequired) as raised:
                self.gate.call(Call(tool, step="drop", args={"table": "orders"}), lambda _c: self.fail("must not run"))
            self.assertEqual(raised.exception.mode, "required")

            def preview(args: Any) -> Preview:
                seen.append(args)
                return Preview(f"drops table {args['table']}", [f"db.{args['table']}"])

            result = self.gate.call_result(Call(tool, step="drop", args={"table": "orders"}), lambda c: self.double.apply(c.idempotency_key), preview=preview)
        self.assertEqual(result.status, "executed")
        self.assertEqual(seen, [{"table": "orders"}])
        self.assertEqual(self.double.count(), 1)

    def test_preview_approve_waits_for_the_operator(self) -> None:
        tool = unique("delete_repo")
        put_policy(tool, {"preview": "approve"})
        approver = threading.Thread(target=self._approve_first_pending_preview, args=(tool, "approve"))
        approver.start()
        with self.gate.run(run_id=self.run_id()):
            value = self.gate.call(Call(tool, step="rm", args={"repo": "x"}), lambda c: "deleted", preview=lambda a: Preview("deletes repo x", ["repo:x"]))
        approver.join(30)
        self.assertEqual(value, "deleted")

        denier = threading.Thread(target=self._approve_first_pending_preview, args=(tool, "deny"))
        denier.start()
        with self.gate.run(run_id=self.run_id()):
            with self.assertRaises(PreviewDenied):
                self.gate.call(Call(tool, step="rm", args={"repo": "y"}), lambda c: self.fail("must not run"), preview=lambda a: Preview("deletes repo y", ["repo:y"]))
        denier.join(30)

    def _approve_first_pending_preview(self, tool: str, verdict: str) -> None:
        found: list[str] = []

        def pending() -> bool:
            found[:] = [p["previewId"] for p in operator("GET", "/previews?status=pending")["previews"] if p["tool"] == tool]
            return bool(found)

        wait_until(pending, what="a pending preview")
        operator("POST", f"/previews/{found[0]}/{verdict}", {"note": f"{verdict}d by the python suite"})


class Approvals(GateTestCase):
    def test_a_resend_needs_an_operator_and_runs_once_more_after_approval(self) -> None:
        spec = Call("send_invoice", step="send", args={"invoice": "inv-1"})

        def send(tool_call: idemgate.ToolCall) -> dict[str, Any]:
            return self.double.apply(tool_call.idempotency_key, invoice="inv-1")

        with self.gate.run(run_id=self.run_id()):
            first = self.gate.call(spec, send)
            with self.assertRaises(ApprovalRequired) as raised:
                self.gate.call(Call("send_invoice", step="send", args={"invoice": "inv-1"}, bypass="the customer never got it"), send)
            request_id = raised.exception.request_id
            pending = operator("GET", f"/resend-requests/{request_id}")
            self.assertEqual(pending["status"], "pending")
            operator("POST", f"/resend-requests/{request_id}/approve", {"note": "checked with the customer"})
            token = raised.exception.wait(timeout=30)
            resent = self.gate.call_result(Call("send_invoice", step="send", args={"invoice": "inv-1"}, bypass_token=token), send)
            after = self.gate.call_result(spec, send)
        self.assertEqual(resent.status, "executed")
        self.assertNotEqual(resent.value["effectId"], first["effectId"])
        self.assertEqual((after.status, after.value), ("replayed", resent.value))
        self.assertEqual(self.double.count(invoice="inv-1"), 2)

    def test_calling_again_with_bypass_after_approval_redeems_the_token_itself(self) -> None:
        spec = Call("send_invoice", step="send2", args={"invoice": "inv-2"})
        again = Call("send_invoice", step="send2", args={"invoice": "inv-2"}, bypass="bounced")
        with self.gate.run(run_id=self.run_id()):
            self.gate.call(spec, lambda c: self.double.apply(c.idempotency_key, invoice="inv-2"))
            with self.assertRaises(ApprovalRequired) as raised:
                self.gate.call(again, lambda c: self.fail("must not run before approval"))
            operator("POST", f"/resend-requests/{raised.exception.request_id}/approve", {"note": "ok"})
            resent = self.gate.call_result(again, lambda c: self.double.apply(c.idempotency_key, invoice="inv-2"))
        self.assertEqual(resent.status, "executed")
        self.assertEqual(self.double.count(invoice="inv-2"), 2)

    def test_a_denied_request_raises_ApprovalDenied_from_wait(self) -> None:
        with self.gate.run(run_id=self.run_id()):
            self.gate.call(Call("send_invoice", step="send3"), lambda c: "sent")
            with self.assertRaises(ApprovalRequired) as raised:
                self.gate.call(Call("send_invoice", step="send3", bypass="again please"), lambda c: "sent")
        operator("POST", f"/resend-requests/{raised.exception.request_id}/deny", {"note": "it was delivered"})
        with self.assertRaises(ApprovalDenied) as denied:
            raised.exception.wait(timeout=30)
        self.assertEqual(denied.exception.status, "denied")


class AcceptedOperations(GateTestCase):
    def test_a_long_running_job_starts_once_and_its_operation_id_finishes_it(self) -> None:
        spec = Call("export_report", step="export", args={"month": "2026-11"})

        def start(tool_call: idemgate.ToolCall) -> Accepted:
            job = self.double.apply(tool_call.idempotency_key, job="export")
            return Accepted(job["effectId"], status_url=f"{self.double.url}/effects/{tool_call.idempotency_key}")

        with self.gate.run(run_id=self.run_id()):
            first = self.gate.call_result(spec, start)
            again = self.gate.call_result(spec, start)
            self.assertEqual((first.status, again.status, again.replayed), ("accepted", "accepted", True))
            self.assertEqual(again.value, first.value)
            self.gate.finish_operation(first.call_id, first.value.operation_id, result={"rows": 7})
            done = self.gate.call_result(spec, start)
        self.assertEqual((done.status, done.value), ("replayed", {"rows": 7}))
        self.assertEqual(self.double.count(job="export"), 1)


class FaultyProxy:
    """In front of the real gate: answers 503 to the first begin, drops the connection of the first
    complete before forwarding it, and keeps every body it was sent."""

    def __init__(self, target: str) -> None:
        self.bodies: dict[str, list[bytes]] = {"begin": [], "complete": []}
        self.faults = {"begin": ["503"], "complete": ["drop"]}
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                route = "begin" if self.path.endswith("/begin") else "complete" if self.path.endswith("/complete") else "other"
                proxy.bodies.setdefault(route, []).append(body)
                fault = proxy.faults.get(route, []).pop(0) if proxy.faults.get(route) else None
                if fault == "503":
                    data = json.dumps({"error": {"code": "store_unavailable", "message": "try again", "retryable": True}}).encode()
                    self.send_response(503)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if fault == "drop":
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                request = urllib.request.Request(target + self.path, data=body, method="POST", headers={"authorization": self.headers["authorization"], "content-type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=30) as response:
                        status, data = response.status, response.read()
                except urllib.error.HTTPError as error:
                    status, data = error.code, error.read()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class TransientGateErrors(GateTestCase):
    def test_a_503_and_a_connection_reset_before_the_answer_are_retried_with_the_same_request(self) -> None:
        proxy = FaultyProxy(env("IDEMGATE_URL"))
        self.addCleanup(proxy.close)
        gate = idemgate.Gate(proxy.url, env("IDEMGATE_API_KEY"), heartbeat=False)
        with gate.run(run_id=self.run_id()):
            result = gate.call_result(Call("charge_card", step="retry", args={"amount": 5}), lambda c: self.double.apply(c.idempotency_key))
        self.assertEqual(result.status, "executed")
        self.assertEqual(self.double.count(), 1)
        self.assertEqual(len(proxy.bodies["begin"]), 2)
        self.assertEqual(proxy.bodies["begin"][0], proxy.bodies["begin"][1], "the retry is the identical request")
        self.assertEqual(len(proxy.bodies["complete"]), 2)
        self.assertEqual(proxy.bodies["complete"][0], proxy.bodies["complete"][1])
        status = new_gate().status(result.call_id)
        self.assertEqual(status["status"], "succeeded")

    def test_a_bad_api_key_is_not_retried(self) -> None:
        gate = idemgate.Gate(env("IDEMGATE_URL"), "ig_not_a_key")
        with gate.run(run_id=self.run_id()):
            with self.assertRaises(idemgate.GateError) as raised:
                gate.call(Call("t", step="s"), lambda _c: self.fail("must not run"))
        self.assertEqual((raised.exception.code, raised.exception.retryable, raised.exception.status), ("unauthorized", False, 401))


if __name__ == "__main__":
    import unittest

    unittest.main()
