"""A Python map returning 43878 declared Types.SHORT(): what PyFlink's SHORT coder does with it."""

from pyflink.common import Types

MODES = ("STREAMING",)


def build(env) -> None:
    env.set_parallelism(1)
    (
        env.from_collection([1, 2], type_info=Types.INT())
        .map(lambda x: 43878 if x == 2 else x, output_type=Types.SHORT())
        .print("short")
    )
