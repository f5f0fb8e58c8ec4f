"""The run context travels by contextvars: into asyncio tasks by itself, into threads with help."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from support import GateTestCase, idemgate

from idemgate import Call, current_run, current_tool_call, in_context


class RunContext(GateTestCase):
    def recorded(self, call_id: str) -> tuple[str, str]:
        status = self.gate.status(call_id)
        return status["runId"], status["agentId"]

    def test_nested_runs_are_subagents_sharing_the_root_run_id(self) -> None:
        with self.gate.run(run_id=self.run_id()) as root:
            with self.gate.run() as child:
                with self.gate.run(agent_id="researcher") as named:
                    self.assertEqual(named.agent_id, "researcher")
                    result = self.gate.call_result(Call("lookup", step="s"), lambda c: "x")
            with self.gate.run() as second:
                pass
            with self.assertRaises(ValueError):
                with self.gate.run(run_id="another"):
                    pass
        self.assertEqual((child.run_id, child.agent_id, child.parent_agent_id, child.depth), (root.run_id, "main/1", "main", 1))
        self.assertEqual(second.agent_id, "main/2")
        self.assertEqual(self.recorded(result.call_id), (root.run_id, "researcher"))
        self.assertIsNone(current_run())

    def test_threads_carry_the_run_with_idemgate_Thread_and_in_context(self) -> None:
        results: dict[str, Any] = {}
        with self.gate.run(run_id=self.run_id()) as root:
            thread = idemgate.Thread(target=lambda: results.setdefault("thread", self.gate.call_result(Call("fetch", step="thread"), lambda c: "t")))
            thread.start()
            thread.join(30)
            with ThreadPoolExecutor(max_workers=2) as pool:
                pooled = pool.submit(in_context(self.gate.call_result), Call("fetch", step="pool"), lambda c: "p").result(30)

            def bare() -> None:
                try:
                    self.gate.call(Call("fetch", step="bare"), lambda c: "b")
                except RuntimeError as error:
                    results["bare"] = error

            plain = threading.Thread(target=bare)  # a plain thread starts with an empty context
            plain.start()
            plain.join(30)
        self.assertEqual(self.recorded(results["thread"].call_id), (root.run_id, "main"))
        self.assertEqual(self.recorded(pooled.call_id), (root.run_id, "main"))
        self.assertIn("outside gate.run", str(results["bare"]))

    def test_asyncio_tasks_inherit_the_run_and_see_their_own_tool_call(self) -> None:
        keys: dict[str, str] = {}

        @self.gate.tool(scope="city")
        async def weather(city: str) -> dict[str, Any]:
            await asyncio.sleep(0.05)
            call = current_tool_call()
            assert call is not None
            keys[city] = call.idempotency_key
            return {"city": city, "key": call.idempotency_key, "run": current_run().run_id}  # type: ignore[union-attr]

        async def subagent(city: str) -> dict[str, Any]:
            with self.gate.run():
                return await weather(city)

        async def main(run_id: str) -> list[dict[str, Any]]:
            with self.gate.run(run_id=run_id):
                return list(await asyncio.gather(weather("Oslo"), asyncio.create_task(weather("Lima")), subagent("Pune"), weather("Oslo")))

        run_id = self.run_id()
        oslo, lima, pune, oslo_again = asyncio.run(main(run_id))
        self.assertEqual({r["run"] for r in (oslo, lima, pune)}, {run_id})
        self.assertEqual(oslo, oslo_again, "the same step from two tasks is one call")
        self.assertEqual(len({oslo["key"], lima["key"], pune["key"]}), 3)
        self.assertEqual(set(keys), {"Oslo", "Lima", "Pune"})
        self.assertIsNone(current_tool_call())

    def test_async_tools_that_run_gated_subagents_do_not_starve_each_other(self) -> None:
        """Twelve async tools at once, each awaiting a gated call of its own (a subagent's step): more
        than asyncio's default executor has threads on a small machine, which the calls must not share."""

        @self.gate.tool(scope="n")
        async def inner(n: int) -> int:
            await asyncio.sleep(0.05)
            return n * 10

        @self.gate.tool(scope="n")
        async def outer(n: int) -> int:
            with self.gate.run():
                return await inner(n) + 1

        async def main() -> list[int]:
            with self.gate.run(run_id=self.run_id()):
                return list(await asyncio.wait_for(asyncio.gather(*(outer(n) for n in range(12))), 60))

        self.assertEqual(asyncio.run(main()), [n * 10 + 1 for n in range(12)])

    def test_the_tool_call_is_visible_only_inside_the_tool(self) -> None:
        with self.gate.run(run_id=self.run_id()):
            inside = self.gate.call(Call("peek", step="s"), lambda c: current_tool_call() is c)
            self.assertTrue(inside)
            self.assertIsNone(current_tool_call())
