"""Float keys declared key_type=Types.INT(): PyFlink's INT key coder truncates them (int()), and
state is scoped by the converted key (1.7 and 1.2 share key 1)."""

from pyflink.common import Types

MODES = ("STREAMING", "BATCH")


def build(env) -> None:
    env.set_parallelism(1)
    (
        env.from_collection([(1.7, 1), (1.2, 2), (2.0, 3), (-1.5, 4), (-1.5, 5), (-1.2, 6)])
        .key_by(lambda r: r[0], key_type=Types.INT())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print("int_key")
    )
