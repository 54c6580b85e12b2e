"""How processing time passes for a subtask whose host does not run it all the time.

In Flink every task reads one clock, the TaskManager's wall clock (``SystemProcessingTimeService``),
and a task's thread runs without pause: a bounded ``from_collection`` source emits all its records
long before its first 200 ms periodic watermark. pyflowkit's hosts run a subtask in steps: the
simulated cluster schedules one mailbox step at a time on its discrete-event clock, and Spark
streaming reads a source a slice per micro-batch, with a second or more of its own work between
two slices. If that host time counted as the subtask's, a periodic watermark would fall between two
slices of a fast source and its later out-of-order records would be late, which Flink never shows.

So both hosts follow one rule (``ProcessingClock``):

- **a source's time passes while it works or waits**: each read step costs its records' cost
  (``record_cost_ms`` each; at least ``STEP_MILLIS``), or the wall time the step really took if
  that is longer (a generator that blocks or sleeps), plus the pauses the source asked for
  (``SourceContext.sleep``); while the source has nothing to read, the real time until its next
  step passes too. The time the host holds a source back (the simulated scheduler, Spark between
  micro-batches) does not pass;
- **a consumer's time is carried in-band**: each slice a producer sends carries the producer's
  time (``advance_to``: time never goes back); while a consumer has no input, the real time it
  waits passes (``waited``).

The simulated cluster measures no wall time (its steps are simulated: ``waited_ms`` is 0), Spark
streaming measures it around each read step.
"""

from __future__ import annotations

import math

STEP_MILLIS = 1  # the least processing time one step of a task takes (a mailbox step)


def step_millis(records: int, record_cost_ms: float = 0.0, waited_ms: float = 0.0) -> int:
    """Milliseconds one read step of ``records`` takes: their cost (``record_cost_ms`` each, at
    least ``STEP_MILLIS``) or the wall time it really waited, whichever is longer."""
    return max(STEP_MILLIS, math.ceil(records * record_cost_ms), math.ceil(waited_ms))


class ProcessingClock:
    """A subtask's processing time under the rule above (in ms since the epoch)."""

    __slots__ = ("_exact",)

    def __init__(self, start: int) -> None:
        self._exact = float(start)  # real waits add fractions of a millisecond

    @property
    def now(self) -> int:
        return int(self._exact)

    def step(self, records: int, waited_ms: float, pause_ms: int = 0, cost: float = 0.0) -> int:
        """A read step of ``records`` that really took ``waited_ms``, then ``pause_ms`` asleep;
        a step that read nothing costs only the real time it waited."""
        if records:
            self._exact += step_millis(records, cost, waited_ms)
        else:
            self._exact += max(0.0, waited_ms)
        self._exact += pause_ms
        return self.now

    def waited(self, millis: float) -> int:
        """The subtask had nothing to do for ``millis`` of real time: that time passes."""
        self._exact += max(0.0, millis)
        return self.now

    def advance_to(self, timestamp: int) -> int:
        """A producer's in-band time: the consumer's time is at least that (never goes back)."""
        if timestamp > self._exact:
            self._exact = float(timestamp)
        return self.now
