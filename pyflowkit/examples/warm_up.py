"""The tiny job the background Spark warm-up runs (``pyflowkit.spark.warmup``).

It touches every kind of stage a first job meets: a collection source, a chained map, a HASH
shuffle, a keyed reduce and a collecting sink. No Flink counterpart.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.common import Types


def warm_up_job_graph() -> Any:
    """The JobGraph of ``from_collection → map → key_by → reduce → sink``, parallelism 2."""
    from pyflowkit.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    pairs = Types.TUPLE([Types.INT(), Types.INT()])
    (
        env.from_collection([1, 2, 3, 4], type_info=Types.INT())
        .map(lambda x: (x % 2, x), output_type=pairs)
        .key_by(lambda t: t[0], key_type=Types.INT())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .add_sink(_discard)
    )
    return env.get_job_graph("pyflowkit warm-up")


def _discard(value: Any) -> None:
    """A sink that keeps nothing."""
