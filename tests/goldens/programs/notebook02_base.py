"""Notebook 02_chaining_rules: the pipeline of its `%%pipeline base` cell."""

from pyflink.common import Types  # noqa: F401

MODES = ("STREAMING",)
COMPARE = "final_per_subtask"  # one key (every value is even): its running sums interleave


def build(env) -> None:
    env.set_parallelism(2)
    src = env.from_collection(list(range(20)))
    mapped = src.map(lambda x: x * 10).filter(lambda x: x % 3 != 0)
    mapped.key_by(lambda x: x % 2).reduce(lambda a, b: a + b).print()
