"""A float key out of INT's range: PyFlink's INT key coder fails the job (OverflowError)."""

from pyflink.common import Types

MODES = ("STREAMING",)


def build(env) -> None:
    env.set_parallelism(1)
    (
        env.from_collection([(1.0, 1), (2147483653.0, 2)])
        .key_by(lambda r: r[0], key_type=Types.INT())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print("overflow")
    )
