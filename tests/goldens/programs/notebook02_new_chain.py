"""Notebook 02_chaining_rules: the pipeline of its `%%pipeline new_chain` cell."""

from pyflink.common import Types  # noqa: F401

MODES = ("STREAMING",)
COMPARE = "sorted_no_subtask"


def build(env) -> None:
    env.set_parallelism(2)
    src = env.from_collection(list(range(20)))
    src.map(lambda x: x * 10).filter(lambda x: x % 3 != 0).start_new_chain().print()
