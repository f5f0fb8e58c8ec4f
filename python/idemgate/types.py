"""The values a gated call takes and gives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Mapping, Optional, TypeVar, Union

T = TypeVar("T")

UNSET: Any = object()


@dataclass(frozen=True)
class Call:
    """What the agent asks to do. The key is derived by the gate from these, never by the model.

    ``step``: the logical step, stable across re-plans ("charge the customer"); ``scope``: the
    business entity ("order:123"); with neither, the key comes from the canonical args.
    ``bypass``: a reason to run a completed call once more (a human-approved resend);
    ``bypass_token``: an approved request's single-use token.
    """

    tool: str
    step: Optional[str] = None
    scope: Optional[str] = None
    args: Any = UNSET
    tool_call_id: Optional[str] = None
    run_id: Optional[str] = None
    agent_id: Optional[str] = None
    bypass: Optional[str] = None
    bypass_token: Optional[str] = None

    @staticmethod
    def of(spec: Union["Call", Mapping[str, Any]]) -> "Call":
        return spec if isinstance(spec, Call) else Call(**dict(spec))


@dataclass(frozen=True)
class Found(Generic[T]):
    """What ``verify=`` / ``check=`` found downstream by key: the call is completed with it, not run."""

    value: T


@dataclass(frozen=True)
class NotFound:
    """``check=``: nothing was done downstream; the tool runs under the same key."""


@dataclass(frozen=True)
class Unknown:
    """``check=``: it cannot be told whether the effect happened; nothing runs, an operator decides."""

    reason: Optional[str] = None


@dataclass(frozen=True)
class Preview:
    """A dry run: what the call would do, for a human to read before it runs."""

    summary: str
    affected: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Compensation:
    """Sagas: the action that undoes a call's effect should its run abort (a registered compensator)."""

    tool: str
    args: Any = None


@dataclass(frozen=True)
class Accepted:
    """Return this from a tool that started a long-running job: later calls get the operation, not a second job."""

    operation_id: str
    status_url: Optional[str] = None

    def to_wire(self) -> dict[str, Any]:
        wire = {"operationId": self.operation_id}
        if self.status_url is not None:
            wire["statusUrl"] = self.status_url
        return wire


@dataclass(frozen=True)
class CallResult(Generic[T]):
    """A call that produced a value: ``executed`` now, ``replayed`` from before, ``verified`` (found done
    downstream) or ``accepted`` (a long-running operation; ``value`` is its ``Accepted``)."""

    status: str
    value: T
    call_id: str
    key: str
    attempt: Optional[int] = None
    recovered: bool = False
    replayed: bool = False
    replays: int = 0
    args_mismatch: bool = False
    #: False when the gate did not take the outcome (its lease will lapse); the value is still yours.
    recorded: bool = True
    #: Set when the value is not JSON: the success was recorded without it (replays carry None).
    result_not_stored: Optional[str] = None
    loop_warning: Optional[Mapping[str, Any]] = None


@dataclass(frozen=True)
class CompensationOutcome:
    """How a compensation run ended: ``compensated``, ``compensation_failed`` (in the operators' queue)
    or still ``compensating`` (a retryable failure outlasted the retries: run it again later)."""

    ok: bool
    state: str
    plan: Mapping[str, Any]
    error: Optional[Any] = None
