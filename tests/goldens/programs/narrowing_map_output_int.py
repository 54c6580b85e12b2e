"""A Python map returning 4387800000 declared Types.INT(): what PyFlink's INT coder does with it."""

from pyflink.common import Types

MODES = ("STREAMING",)


def build(env) -> None:
    env.set_parallelism(1)
    (
        env.from_collection([1, 2], type_info=Types.INT())
        .map(lambda x: 4387800000 if x == 2 else x, output_type=Types.INT())
        .print("int")
    )
