"""Notebook 05_failure_and_recovery: its `%%pipeline recovery` cell at parallelism 3."""

from pyflink.common import Types  # noqa: F401

MODES = ("STREAMING",)
COMPARE = "sorted"


def build(env) -> None:
    env.set_parallelism(3)
    numbers = env.from_collection(list(range(200)), type_info=Types.INT()).uid("numbers")
    sums = (
        numbers.map(lambda x: (x % 10, x), output_type=Types.TUPLE([Types.INT(), Types.INT()]))
        .uid("pairs")
        .key_by(lambda t: t[0])
        .sum(1)
        .uid("sums")
    )
    sums.print().uid("print")
