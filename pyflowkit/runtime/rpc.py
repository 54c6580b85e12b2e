"""The simulated RPC bus: messages between components, and the trace they leave."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.runtime.environment import SimEnvironment
from pyflowkit.runtime.printed_lines import DEFAULT_PRINTED_WINDOW
from pyflowkit.runtime.trace import (
    TraceEvent,
    checkpoint_event_from_template,
    event_from_template,
    new_trace_event,
)


@dataclass(frozen=True)
class ClusterConfig:
    """Knobs of a MiniCluster (defaults are Flink 1.11's where Flink has one)."""

    task_managers: int = 2
    slots_per_task_manager: int = 2
    seed: int = 0
    rpc_latency: int = 1  # ms per RPC message
    buffer_size: int = 4  # records per network buffer in step mode
    fast_buffer_size: int = 512  # records per network buffer in fast mode
    buffers_per_channel: int = 2  # taskmanager.network.memory.buffers-per-channel
    floating_buffers_per_gate: int = 8  # taskmanager.network.memory.floating-buffers-per-gate
    source_batch: int = 4  # records a source emits per mailbox step (step mode)
    fast_source_batch: int = 512
    slot_request_timeout: int = 300_000  # slot.request.timeout (ms)
    echo_print: bool = True  # also write print-sink lines to stdout
    printed_window: int | None = DEFAULT_PRINTED_WINDOW  # lines run.printed() keeps; None: all
    #: operator name (or JobVertex name) → simulated ms each record entering its task costs (a
    #: slow sink: {"Sink: slow sink": 3}); the task's next mailbox step waits that long
    record_cost_ms: Mapping[str, float] = field(default_factory=dict)


class RpcBus:
    """Delivers messages through the SimEnvironment and records trace events.

    Stands for Flink's Akka ``RpcService``: every ``send`` is one message on the bus.
    """

    def __init__(self, config: ClusterConfig) -> None:
        self.config = config
        self.env = SimEnvironment(config.seed)
        self.ids = random.Random(f"ids-{config.seed}")
        # the events in order; a checkpoint-protocol event recorded in fast mode may still be its
        # compact tuple (``_LazyEvent``), made a TraceEvent when the trace is read (``trace``)
        self._trace: list[TraceEvent | _LazyEvent] = []
        self._lazy_from: int | None = None  # index of the first compact tuple, None: none
        self.step = 0
        self.fast = False
        # checkpoint-protocol events recorded in fast mode, oldest first (forget_checkpoint_events)
        self.fast_checkpoint_events: list[TraceEvent | _LazyEvent] = []
        self.state_listeners: list[Callable[[TraceEvent], None]] = []

    @property
    def trace(self) -> list[TraceEvent]:
        """Every event recorded so far, oldest first."""
        if self._lazy_from is not None:
            self._materialise()
        return self._trace  # type: ignore[return-value]

    def _materialise(self) -> None:
        """Turn the compact tuples of fast mode into their TraceEvents (same fields)."""
        trace, start = self._trace, self._lazy_from
        assert start is not None
        made: dict[int, TraceEvent] = {}
        for i in range(start, len(trace)):
            entry = trace[i]
            if type(entry) is tuple:
                ev = checkpoint_event_from_template(*entry)
                made[id(entry)] = ev
                trace[i] = ev
        if made:
            self.fast_checkpoint_events = [
                made.get(id(e), e)  # type: ignore[misc]
                for e in self.fast_checkpoint_events
            ]
        self._lazy_from = None

    @property
    def now(self) -> int:
        return self.env.now

    def new_id(self) -> str:
        """A 32-hex-digit id (ExecutionAttemptID, AllocationID, …), seeded."""
        return f"{self.ids.getrandbits(128):032x}"

    def send(self, sender: str, receiver: str, method: str, action: Callable[[], None]) -> None:
        self.env.schedule(self.config.rpc_latency, f"{sender}->{receiver}", method, action)

    def call_later(self, delay: int, lane: str, name: str, action: Callable[[], None]) -> Any:
        return self.env.schedule(delay, lane, name, action)

    def emit(
        self,
        component: str,
        method: str,
        message: str,
        *,
        data: bool = False,
        **subjects: object,
    ) -> TraceEvent | None:
        """Record one trace event (data-plane events are left out in fast mode)."""
        if data and self.fast:
            return None
        ev = new_trace_event(self.step, self.env.now, component, method, message, subjects)
        return self._record(ev)

    def emit_from(
        self, template: dict[str, Any], method: str, message: str, extra: dict[str, Any]
    ) -> TraceEvent:
        """``emit`` for a component that emits many events about the same subjects: the
        fields come from ``trace_event_template(component, **subjects)``, ``extra`` added."""
        ev = event_from_template(template, self.step, self.env.now, method, message, extra)
        return self._record(ev)

    def emit_about_checkpoint(
        self, template: dict[str, Any], method: str, message: str, checkpoint: int
    ) -> None:
        """``emit_from(template, method, message, {"checkpoint": checkpoint})``: an event of the
        checkpoint protocol. In fast mode it is kept as a compact tuple until the trace is read
        (most fall out of the bounded history unread: ``forget_checkpoint_events``)."""
        if self.fast and template["new_state"] is None:
            entry = (template, self.step, self.env.now, method, message, checkpoint)
            trace = self._trace
            if self._lazy_from is None:
                self._lazy_from = len(trace)
            trace.append(entry)  # type: ignore[arg-type]
            self.fast_checkpoint_events.append(entry)  # type: ignore[arg-type]
            return
        ev = checkpoint_event_from_template(
            template, self.step, self.env.now, method, message, checkpoint
        )
        self._trace.append(ev)
        if ev.new_state is not None:
            for listener in self.state_listeners:
                listener(ev)
        elif self.fast:
            self.fast_checkpoint_events.append(ev)

    def _record(self, ev: TraceEvent) -> TraceEvent:
        """Append ``ev`` to the trace; a state transition goes to the state listeners too."""
        self._trace.append(ev)
        if ev.new_state is not None:
            for listener in self.state_listeners:
                listener(ev)
        elif ev.checkpoint is not None and self.fast:
            self.fast_checkpoint_events.append(ev)
        return ev

    def forget_checkpoint_events(self, before: int, kept_methods: frozenset[str]) -> int:
        """Drop from the trace the checkpoint-protocol events recorded in fast mode about
        checkpoints with ids below ``before`` (a bounded history, as Flink's web UI keeps:
        ``web.checkpoints.history``); events recorded while stepping, and those of
        ``kept_methods`` (the job's own history, such as a restore), stay. Returns how many."""
        old = self.fast_checkpoint_events
        if not old or _checkpoint_of(old[0]) >= before:
            return 0
        dropped = {
            id(ev)
            for ev in old
            if _checkpoint_of(ev) < before and _method_of(ev) not in kept_methods
        }
        self.fast_checkpoint_events = [
            ev for ev in old if id(ev) not in dropped and _checkpoint_of(ev) >= before
        ]
        trace = self._trace
        trace[:] = [ev for ev in trace if id(ev) not in dropped]
        if self._lazy_from is not None:
            self._lazy_from = next((i for i, ev in enumerate(trace) if type(ev) is tuple), None)
        return len(dropped)


# a checkpoint-protocol event recorded in fast mode, not made yet: the arguments of
# ``checkpoint_event_from_template`` (template, step, time, method, message, checkpoint)
_LazyEvent = tuple[dict[str, Any], int, int, str, str, int]


def _checkpoint_of(ev: TraceEvent | _LazyEvent) -> int:
    return ev[5] if type(ev) is tuple else ev.checkpoint  # type: ignore[return-value,union-attr]


def _method_of(ev: TraceEvent | _LazyEvent) -> str:
    return ev[3] if type(ev) is tuple else ev.method  # type: ignore[return-value,union-attr]
