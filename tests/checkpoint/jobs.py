"""Jobs shared by the checkpoint tests (real operators on the simulated cluster)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore

WORDS = ("to be or not to be that is the question " * 40).split()


def word_count(
    store: TransactionStore,
    parallelism: int = 2,
    interval: int | None = 30,
    words: list[str] = WORDS,
    reduce_uid: str = "counts",
) -> Any:
    """from_collection → map → key_by → reduce (uid ``reduce_uid``) → transactional sink."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    if interval is not None:
        env.enable_checkpointing(interval)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(5, 100))
    (
        env.from_collection(words)
        .uid("words")
        .map(lambda w: (w, 1))
        .uid("pairs")
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .uid(reduce_uid)
        .add_sink(TransactionalListSink(store))
        .uid("sink")
    )
    return env


def running_counts(words: list[str]) -> Counter[tuple[str, int]]:
    """Every (word, running count) a keyed reduce emits, once each."""
    return Counter((w, i + 1) for w in set(words) for i in range(words.count(w)))


def final_counts(words: list[str]) -> dict[str, int]:
    return dict(Counter(words))
