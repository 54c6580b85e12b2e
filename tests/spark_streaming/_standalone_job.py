"""The streaming job of the standalone-cluster test (pickled by value to the cluster's workers)."""

from __future__ import annotations

import time
from typing import Any

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction

KEYS = ("a", "b", "c")


class EndlessWords(SourceFunction):
    """(key, 1) for keys a, b, c in turn, a few ms apart, without end."""

    def run(self, ctx: Any) -> Any:
        i = 0
        while True:
            time.sleep(0.01)
            yield (KEYS[i % len(KEYS)], 1)
            i += 1


def running_counts(env: StreamExecutionEnvironment) -> None:
    (
        env.add_source(EndlessWords(), "Endless Words", Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda w: w[0], key_type=Types.STRING())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print("count")
    )
