"""Sagas: undo functions registered with completes, run once each when the run aborts."""

from __future__ import annotations

from typing import Any

from support import GateTestCase, idemgate

from idemgate import Call, Compensation


class Saga(GateTestCase):
    def test_abort_runs_each_undo_once_newest_first_and_a_second_runner_finds_nothing_to_do(self) -> None:
        undone: list[tuple[str, Any, str]] = []

        @self.gate.compensator("release_inventory")
        def release(args: Any, tool_call: idemgate.ToolCall) -> str:
            undone.append(("release", args, tool_call.idempotency_key))
            self.double.apply(tool_call.idempotency_key, undo="release")
            return "released"

        def refund(args: Any, tool_call: idemgate.ToolCall) -> str:
            undone.append(("refund", args, tool_call.idempotency_key))
            self.double.apply(tool_call.idempotency_key, undo="refund")
            return "refunded"

        self.gate.compensators["refund_charge"] = refund
        run_id = self.run_id("saga")
        with self.gate.run(run_id=run_id):
            reserved = self.gate.call_result(
                Call("reserve_inventory", step="reserve", args={"sku": "sku-1", "qty": 2}),
                lambda c: self.double.apply(c.idempotency_key, do="reserve"),
                compensate=lambda r: Compensation("release_inventory", {"reservationId": r["effectId"]}),
            )
            charged = self.gate.call_result(
                Call("charge_card", step="charge", args={"amount": 4200}),
                lambda c: self.double.apply(c.idempotency_key, do="charge"),
                compensate=lambda r: ("refund_charge", {"chargeId": r["effectId"]}),
            )
            outcome = self.gate.abort(run_id)

        self.assertEqual((outcome.ok, outcome.state), (True, "compensated"))
        self.assertEqual([u[0] for u in undone], ["refund", "release"])
        self.assertEqual(undone[0][1], {"chargeId": charged.value["effectId"]})
        self.assertEqual(undone[1][1], {"reservationId": reserved.value["effectId"]})
        self.assertEqual(undone[0][2], f"{charged.key}:compensate", "the undo's key, to pass downstream")
        again = idemgate.Gate(self.gate.transport.base_url, "unused", transport=self.gate.transport).compensate(run_id, compensators={"refund_charge": refund, "release_inventory": release})
        self.assertEqual(again.state, "compensated")
        self.assertEqual((self.double.count(undo="refund"), self.double.count(undo="release")), (1, 1))

    def test_a_permanent_undo_failure_stops_the_plan_as_compensation_failed(self) -> None:
        run_id = self.run_id("saga_fail")
        with self.gate.run(run_id=run_id):
            self.gate.call(Call("charge_card", step="charge", args={"amount": 1}), lambda c: {"chargeId": "ch_1"}, compensate=lambda r: Compensation("refund_charge", r))

        def refund(_args: Any, _call: idemgate.ToolCall) -> None:
            raise idemgate.ToolError("the charge is disputed", retryable=False)

        outcome = self.gate.abort(run_id, "fraud", compensators={"refund_charge": refund})
        self.assertEqual((outcome.ok, outcome.state), (False, "compensation_failed"))
