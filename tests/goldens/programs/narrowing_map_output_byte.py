"""A Python map returning 200 declared Types.BYTE(): what PyFlink's BYTE coder does with it."""

from pyflink.common import Types

MODES = ("STREAMING",)


def build(env) -> None:
    env.set_parallelism(1)
    (
        env.from_collection([1, 2], type_info=Types.INT())
        .map(lambda x: 200 if x == 2 else x, output_type=Types.BYTE())
        .print("byte")
    )
