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
        self.trace: list[TraceEvent] = []
        self.step = 0
        self.fast = False
        # checkpoint-protocol events recorded in fast mode, oldest first (forget_checkpoint_events)
        self.fast_checkpoint_events: list[TraceEvent] = []
        self.state_listeners: list[Callable[[TraceEvent], None]] = []

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
    ) -> TraceEvent:
        """``emit_from(template, method, message, {"checkpoint": checkpoint})``: an event of the
        checkpoint protocol (made without the extra dict; ``_record`` inlined)."""
        ev = checkpoint_event_from_template(
            template, self.step, self.env.now, method, message, checkpoint
        )
        self.trace.append(ev)
        if ev.new_state is not None:
            for listener in self.state_listeners:
                listener(ev)
        elif self.fast:
            self.fast_checkpoint_events.append(ev)
        return ev

    def _record(self, ev: TraceEvent) -> TraceEvent:
        """Append ``ev`` to the trace; a state transition goes to the state listeners too."""
        self.trace.append(ev)
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
        if not old or old[0].checkpoint >= before:  # type: ignore[operator]
            return 0
        dropped = {
            id(ev)
            for ev in old
            if ev.checkpoint < before and ev.method not in kept_methods  # type: ignore[operator]
        }
        self.fast_checkpoint_events = [
            ev
            for ev in old
            if id(ev) not in dropped and ev.checkpoint >= before  # type: ignore[operator]
        ]
        self.trace[:] = [ev for ev in self.trace if id(ev) not in dropped]
        return len(dropped)
