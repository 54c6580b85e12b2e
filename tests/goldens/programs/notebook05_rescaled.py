"""Notebook 05_failure_and_recovery: the pipeline of its `%%pipeline rescaled` cell (parallelism 3).

As in `notebook05_recovery`, a key's running sums depend on how the map subtasks' records
interleave; its final sum does not: compared per key, last line.
"""

from pyflink.common import Types

MODES = ("STREAMING",)
COMPARE = "final_per_key"


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
