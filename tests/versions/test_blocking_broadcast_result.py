"""A BLOCKING broadcast result read by several consumer subtasks (Flink 1.20's batch shuffle).

Under the 1.20 profile a BATCH job runs on the AdaptiveBatchScheduler: every edge is BLOCKING
and a broadcast result has ONE subpartition that each consumer subtask reads in full, through
its own ``BoundedBlockingSubpartitionReader`` (``getNumberOfSubpartitionsForDynamicGraph``: 1
for a broadcast result). A keyed broadcast connect at parallelism 2 used to hang here: the
second consumer's channel took the subpartition over from the first, so one subtask never saw
the broadcast input end and stayed RUNNING.
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.common.flink_version import FLINK_VERSION_KEY
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedBroadcastProcessFunction
from pyflowkit.datastream.state import MapStateDescriptor
from pyflowkit.runtime import JobStatus, MiniCluster

S = Types.STRING
RULES = MapStateDescriptor("rules", S(), S())


class Echo(KeyedBroadcastProcessFunction):
    def process_element(self, value: Any, ctx: Any):
        yield f"{value[0]}={value[1]}"

    def process_broadcast_element(self, value: Any, ctx: Any):
        ctx.get_broadcast_state(RULES).put(value, value)
        yield f"rule {value}"


def _env() -> Any:
    conf = Configuration().set_string(FLINK_VERSION_KEY, "1.20")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    words = env.from_collection(
        [("a", 1), ("b", 2), ("a", 3), ("c", 4)], type_info=Types.TUPLE([S(), Types.INT()])
    )
    rules = env.from_collection(["r1", "r2"], type_info=S()).broadcast(RULES)
    keyed = words.key_by(lambda t: t[0], key_type=S())
    keyed.connect(rules).process(Echo(), output_type=S()).set_parallelism(
        2
    ).print().set_parallelism(2)
    return env


@pytest.mark.parametrize("stepped", [False, True], ids=["fast", "step"])
def test_every_consumer_subtask_reads_the_whole_broadcast_subpartition(stepped: bool) -> None:
    run = MiniCluster(echo_print=False).submit(_env())
    if stepped:
        while run.has_next():
            run.step()
    else:
        run.run()
    run.raise_if_failed()
    assert run.job_status is JobStatus.FINISHED
    lines = run.printed()
    # both subtasks get both rules; each keyed record once, on its key's subtask (1.20 routing)
    assert sorted(x for x in lines if "rule" in x) == [
        "1> rule r1",
        "1> rule r2",
        "2> rule r1",
        "2> rule r2",
    ]
    assert sorted(x for x in lines if "rule" not in x) == ["1> c=4", "2> a=1", "2> a=3", "2> b=2"]
