"""Notebook 01_word_count_cell_by_cell: the pipeline of its `%%pipeline wc` cell(s)."""

from pyflink.common import Types  # noqa: F401

MODES = ("STREAMING",)
COMPARE = "sorted"


def build(env) -> None:
    env.set_parallelism(2)
    lines = env.from_collection(
        ["to be or not to be", "that is the question", "to be is to do"],
        type_info=Types.STRING(),
    )
    words = lines.flat_map(lambda line: line.split(), output_type=Types.STRING())
    counts = (
        words.map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
    )
    counts.print()
