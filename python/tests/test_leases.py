"""Heartbeats keep a slow tool's lease; a lost lease is the tool's cancellation signal."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from support import GateTestCase, idemgate, new_gate, put_policy, raw_begin

from idemgate import Call, LeaseLost


class Heartbeats(GateTestCase):
    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        # The lease_lost tests make a holder whose beats come too late and pin the takeover at its
        # lease's end: no grace for their tools (by default a late beat within the grace renews).
        for tool in ("transfer", "transfer_async"):
            put_policy(tool, {"leaseGraceSeconds": 0})

    def test_heartbeats_keep_a_slow_tools_lease_past_its_length(self) -> None:
        """A 2 s lease and a tool that runs past two of them: nobody else gets to execute meanwhile."""
        gate = new_gate(lease_seconds=2)
        run_id = self.run_id()
        probes: list[str] = []

        def slow(tool_call: idemgate.ToolCall) -> dict[str, Any]:
            started = time.monotonic()
            # Another agent asks twice, each time after more than a whole lease has gone by.
            for at in (2.3, 4.6):
                while time.monotonic() - started < at:
                    time.sleep(0.02)
                probes.append(raw_begin({"tool": "slow_report", "runId": run_id, "stepId": "s"})["decision"])
            self.assertFalse(tool_call.cancelled.is_set())
            return self.double.apply(tool_call.idempotency_key)

        with gate.run(run_id=run_id):
            result = gate.call_result(Call("slow_report", step="s"), slow)
        self.assertEqual(probes, ["in_progress", "in_progress"])
        self.assertEqual((result.status, result.attempt, result.recorded), ("executed", 1, True))
        self.assertEqual(self.double.count(), 1)

    def test_lease_lost_sets_the_tools_cancellation_and_raises_LeaseLost(self) -> None:
        """Beats too far apart (3 s on a 1 s lease): another attempt takes over; the next beat hears
        lease_lost, sets tool_call.cancelled, and the stale attempt's outcome is not recorded."""
        stale_gate = new_gate(lease_seconds=1, heartbeat_interval=3.0)
        run_id = self.run_id()
        claimed = threading.Event()
        outcome: dict[str, Any] = {}

        def stale(tool_call: idemgate.ToolCall) -> str:
            claimed.set()
            if tool_call.cancelled.wait(30):
                return "stopped"  # cancelled before doing the effect
            self.double.apply(tool_call.idempotency_key, by="stale")
            return "stale"

        def stale_agent() -> None:
            with stale_gate.run(run_id=run_id):
                try:
                    stale_gate.call(Call("transfer", step="t"), stale)
                except LeaseLost as lost:
                    outcome["lost"] = lost

        thread = threading.Thread(target=stale_agent)
        thread.start()
        self.assertTrue(claimed.wait(30))
        with self.gate.run(run_id=run_id):
            # Waits out the live lease, then takes over once it has lapsed.
            taken = self.gate.call_result(Call("transfer", step="t"), lambda c: self.double.apply(c.idempotency_key, by="taker"))
        thread.join(30)
        self.assertEqual((taken.status, taken.attempt, taken.recovered), ("executed", 2, True))
        lost = outcome["lost"]
        self.assertTrue(lost.executed)
        self.assertEqual(lost.value, "stopped")
        with self.gate.run(run_id=run_id):
            self.assertEqual(self.gate.call(Call("transfer", step="t"), lambda c: self.fail("must not run")), taken.value)
        self.assertEqual(self.double.count(), 1)

    def test_an_async_tool_whose_lease_is_lost_is_cancelled(self) -> None:
        stale_gate = new_gate(lease_seconds=1, heartbeat_interval=3.0)
        run_id = self.run_id()
        seen: dict[str, Any] = {}

        async def stale(tool_call: idemgate.ToolCall) -> str:
            seen["claimed"] = time.monotonic()
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                seen["cancelled"] = tool_call.cancelled.is_set()
                raise
            return "never"

        async def agent() -> None:
            with stale_gate.run(run_id=run_id):
                with self.assertRaises(LeaseLost) as raised:
                    await stale_gate.acall(Call("transfer_async", step="t"), stale)
                seen["lost"] = raised.exception

        def taker() -> None:
            while "claimed" not in seen:
                time.sleep(0.02)
            with self.gate.run(run_id=run_id):
                seen["taken"] = self.gate.call_result(Call("transfer_async", step="t"), lambda c: "taken")

        thread = threading.Thread(target=taker)
        thread.start()
        asyncio.run(agent())
        thread.join(30)
        self.assertTrue(seen["cancelled"], "the task was cancelled with tool_call.cancelled set")
        self.assertEqual(seen["taken"].status, "executed")
        self.assertLess(time.monotonic() - seen["claimed"], 20)
