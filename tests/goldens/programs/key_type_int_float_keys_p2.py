"""Float keys declared key_type=Types.INT() at parallelism 2: routing hashes the converted key
(1.7 and 1.2 go to the subtask of key 1, and share its state)."""

from pyflink.common import Types

MODES = ("STREAMING",)
COMPARE = "sorted"


def build(env) -> None:
    env.set_parallelism(2)
    (
        env.from_collection(
            [(1.7, 1), (1.2, 2), (2.0, 3), (2.9, 4), (3.5, 5), (-1.5, 6), (-1.2, 7), (0.4, 8)]
        )
        .key_by(lambda r: r[0], key_type=Types.INT())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print("int_key")
    )
