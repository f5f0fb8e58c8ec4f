"""The chaos family: what agents do to tools, each with the no-gate baseline beside it.

Exactly one effect per request through the gate; the baseline shows the duplicates it prevents.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, TimeoutError as FutureTimeout
from typing import Any, Callable

from support import GateTestCase, env, idemgate, put_policy, unique

from idemgate import Call, in_context

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chaos_worker.py")
PARAPHRASES = ["item arrived broken", "the customer says it was damaged", "refund: damaged on arrival", "broken item, please refund", "damaged goods", "arrived in pieces"]


class Timeouts(GateTestCase):
    """The agent framework times a tool out (0.3 s) while it still runs; the model calls it again
    with paraphrased arguments until an answer comes back. The refund goes through only once the
    agent has given up on the first call, so every order sees at least one timeout, on any machine."""

    def agent(self, refund: Callable[..., Any], order: str, timed_out: threading.Event) -> tuple[Any, int]:
        pool = ThreadPoolExecutor(max_workers=32)
        deadline = time.monotonic() + 60
        tries = 0
        try:
            while time.monotonic() < deadline and tries < 32:
                reason = PARAPHRASES[tries % len(PARAPHRASES)]
                tries += 1
                try:
                    return pool.submit(in_context(refund), order, reason).result(timeout=0.3), tries
                except FutureTimeout:
                    timed_out.set()
            raise AssertionError(f"no answer for {order} after {tries} tries")
        finally:
            pool.shutdown(wait=True)  # the timed-out calls run to their end, as they would in production

    def test_timeouts_and_paraphrased_recalls_make_one_refund_per_order(self) -> None:
        timed_out: dict[str, threading.Event] = {}

        def slow_refund(key: str, order: str, reason: str) -> dict[str, Any]:
            self.assertTrue(timed_out[order].wait(60))
            return self.double.apply(key, order=order, reason=reason)

        @self.gate.tool(scope="order_id")
        def refund(order_id: str, reason: str) -> dict[str, Any]:
            return slow_refund(idemgate.current_tool_call().idempotency_key, order_id, reason)  # type: ignore[union-attr]

        orders = [unique("order"), unique("order")]
        with self.gate.run(run_id=self.run_id("timeouts")):
            answers = []
            for order in orders:
                timed_out[order] = threading.Event()
                answers.append(self.agent(refund, order, timed_out[order]))
        for order, (answer, tries) in zip(orders, answers):
            self.assertGreater(tries, 1, "the first call timed out")
            self.assertEqual(answer["order"], order)
            self.assertEqual(self.double.count(order=order), 1)

        # No gate: every paraphrased re-call is another refund.
        baseline = unique("order")
        timed_out[baseline] = threading.Event()
        answer, tries = self.agent(lambda order, reason: slow_refund("toolcall", order, reason), baseline, timed_out[baseline])
        self.assertEqual(answer["order"], baseline)
        self.assertGreater(tries, 1)
        self.assertEqual(self.double.count(order=baseline), tries)


class ParallelThreads(GateTestCase):
    def test_eight_threads_on_the_same_step_make_one_payment(self) -> None:
        n = 8
        barrier = threading.Barrier(n)
        values: list[Any] = []

        def pay(key: str, who: str) -> dict[str, Any]:
            time.sleep(0.2)
            return self.double.apply(key, payment=who)

        def through_gate() -> None:
            barrier.wait()
            values.append(self.gate.call(Call("pay_invoice", step="pay", args={"invoice": "inv-9"}), lambda c: pay(c.idempotency_key, "gate")))

        with self.gate.run(run_id=self.run_id("parallel")):
            threads = [idemgate.Thread(target=through_gate) for _ in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
        self.assertEqual(len(values), n)
        self.assertEqual(len({json.dumps(v, sort_keys=True) for v in values}), 1, "every thread got the one payment")
        self.assertEqual(self.double.count(payment="gate"), 1)

        baseline_barrier = threading.Barrier(n)

        def without_gate(i: int) -> None:
            baseline_barrier.wait()
            pay(f"toolcall_{i}", "baseline")

        threads = [threading.Thread(target=without_gate, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(self.double.count(payment="baseline"), n)


class KilledWorker(GateTestCase):
    """A worker process is SIGKILLed after the card was charged and before the gate heard of it; a
    new process resumes the run."""

    tool = unique("charge_card_async")

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        # effect async: a lapsed lease is answered verify, and the tool's verify looks the charge up by key.
        put_policy(cls.tool, {"effect": "async"})

    def job(self, run_id: str, mode: str, through_gate: bool) -> str:
        return json.dumps({"baseUrl": env("IDEMGATE_URL"), "apiKey": env("IDEMGATE_API_KEY"), "runId": run_id, "tool": self.tool, "doubleUrl": self.double.url, "mode": mode, "gate": through_gate})

    def crash_then_resume(self, run_id: str, through_gate: bool) -> dict[str, Any]:
        worker = subprocess.Popen([sys.executable, WORKER, self.job(run_id, "crash", through_gate)], stdout=subprocess.PIPE, text=True)
        try:
            line = worker.stdout.readline()  # type: ignore[union-attr]
            self.assertEqual(line.strip(), "EFFECT_APPLIED")
        finally:
            worker.send_signal(signal.SIGKILL)
            worker.wait(30)
            worker.stdout.close()  # type: ignore[union-attr]
        self.assertEqual(worker.returncode, -signal.SIGKILL)
        resumed = subprocess.run([sys.executable, WORKER, self.job(run_id, "resume", through_gate)], capture_output=True, text=True, timeout=60)
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        return json.loads(resumed.stdout.strip().splitlines()[-1])

    def test_a_worker_killed_mid_tool_and_resumed_charges_once(self) -> None:
        run_id = self.run_id("killed")
        outcome = self.crash_then_resume(run_id, through_gate=True)
        self.assertEqual((outcome["status"], outcome["attempt"], outcome["receipt"]), ("verified", 2, "sent"))
        self.assertEqual(self.double.count(charge=run_id), 1)
        self.assertEqual(outcome["effect"]["effectId"], self.double.effects[0]["effectId"], "the resumed run got the first charge")

        baseline = self.run_id("killed_baseline")
        self.crash_then_resume(baseline, through_gate=False)
        self.assertEqual(self.double.count(charge=baseline), 2)
