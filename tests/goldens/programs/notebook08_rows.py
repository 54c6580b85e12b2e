"""Notebook 08_what_changed_since_1_11: the pipeline `compare_versions` runs (typed Rows, key_by, map)."""

from pyflink.common import Types

MODES = ("STREAMING",)
COMPARE = "sorted"


def build(env) -> None:
    env.set_parallelism(2)
    env.enable_checkpointing(50)
    ROW = Types.ROW([Types.STRING(), Types.INT()])
    rows = env.from_collection([("a", 1), ("b", 2), ("a", 3)], type_info=ROW)
    rows.key_by(lambda r: r[0]).map(lambda r: r, output_type=ROW).print()
