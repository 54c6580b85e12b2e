"""Notebook 06_running_on_spark: the pipeline of its `%%pipeline wc` cell(s)."""

from pyflink.common import Types  # noqa: F401

MODES = ("STREAMING",)
COMPARE = "sorted"


def build(env) -> None:
    env.set_parallelism(2)
    lines = env.from_collection(["to be or not to be", "that is the question"])
    counts = (
        lines.flat_map(lambda line: line.split())
        .map(lambda w: (w, 1))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
    )
    counts.print()
