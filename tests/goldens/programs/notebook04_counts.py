"""Notebook 04_checkpoints: the pipeline of its `%%pipeline counts` cell(s)."""

from pyflink.common import Types  # noqa: F401

MODES = ("STREAMING",)
COMPARE = "sorted"


def build(env) -> None:
    env.set_parallelism(2)
    env.enable_checkpointing(60_000)
    lines = env.from_collection(
        [f"w{i % 7} w{i % 5}" for i in range(200)], type_info=Types.STRING()
    )
    counts = (
        lines.flat_map(lambda line: line.split(), output_type=Types.STRING())
        .map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
    )
    counts.print()
