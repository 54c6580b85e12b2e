"""A None field in a declared TUPLE: Flink's TupleSerializer refuses null fields (Row allows them)."""

from pyflink.common import Types

MODES = ("STREAMING",)


def build(env) -> None:
    env.set_parallelism(1)
    env.from_collection([("t", None)], type_info=Types.TUPLE([Types.STRING(), Types.LONG()])).print(
        "tuple"
    )
