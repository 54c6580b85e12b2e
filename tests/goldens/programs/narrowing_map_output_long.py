"""A Python map returning 9223372036854775808 declared Types.LONG(): what PyFlink's LONG coder does with it."""

from pyflink.common import Types

MODES = ("STREAMING",)


def build(env) -> None:
    env.set_parallelism(1)
    (
        env.from_collection([1, 2], type_info=Types.INT())
        .map(lambda x: 9223372036854775808 if x == 2 else x, output_type=Types.LONG())
        .print("long")
    )
