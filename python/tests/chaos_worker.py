"""A worker process of the chaos family: charges a card in a run, through the gate or not.

    python3 tests/chaos_worker.py '<json job>'

crash: applies the effect, says EFFECT_APPLIED, then hangs until it is SIGKILLed.
resume: the same run again in a new process; prints its outcome as JSON.
With "gate": false it is the no-gate baseline: the key is the model's new tool-call id each time.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import idemgate  # noqa: E402
from idemgate import Call, Found  # noqa: E402


def apply(double_url: str, key: str, **fields: Any) -> dict[str, Any]:
    request = urllib.request.Request(f"{double_url}/effects", data=json.dumps({"key": key, **fields}).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def lookup(double_url: str, key: str) -> Any:
    try:
        with urllib.request.urlopen(f"{double_url}/effects/{key}", timeout=30) as response:
            return Found(json.loads(response.read()))
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


def main(job: dict[str, Any]) -> None:
    crash = job["mode"] == "crash"

    def charge(key: str) -> dict[str, Any]:
        effect = apply(job["doubleUrl"], key, charge=job["runId"])
        if crash:
            print("EFFECT_APPLIED", flush=True)
            time.sleep(120)  # the answer never comes back: SIGKILLed here
        return effect

    if not job["gate"]:
        # Without the gate the resumed agent's model decides again: a new tool-call id, a new key.
        effect = charge(f"toolcall_{uuid.uuid4().hex}")
        print(json.dumps({"status": "executed", "effect": effect}), flush=True)
        return
    gate = idemgate.Gate(job["baseUrl"], job["apiKey"], lease_seconds=1)
    with gate.run(run_id=job["runId"]):
        result = gate.call_result(
            Call(job["tool"], step="charge", args={"amount": 50}),
            lambda tool_call: charge(tool_call.idempotency_key),
            verify=lambda tool_call: lookup(job["doubleUrl"], tool_call.idempotency_key),
        )
        receipt = gate.call(Call("send_receipt", step="receipt"), lambda _c: "sent")
    print(json.dumps({"status": result.status, "attempt": result.attempt, "effect": result.value, "receipt": receipt}), flush=True)


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
