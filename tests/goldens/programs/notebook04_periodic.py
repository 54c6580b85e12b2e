"""Notebook 04_checkpoints: the pipeline of its `%%pipeline periodic` cell (at-least-once
checkpoints every 20 ms; the output does not depend on them)."""

from pyflink.common import Types
from pyflink.datastream import CheckpointingMode

MODES = ("STREAMING",)
COMPARE = "sorted"


def build(env) -> None:
    env.set_parallelism(2)
    env.enable_checkpointing(20, CheckpointingMode.AT_LEAST_ONCE)
    lines = env.from_collection(
        [f"w{i % 7} w{i % 5}" for i in range(200)], type_info=Types.STRING()
    )
    (
        lines.flat_map(lambda line: line.split(), output_type=Types.STRING())
        .map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
    )
