"""Rows in the print sink: Flink 1.20's Row.toString is +I[a, 1] (1.11 printed a,1)."""

from pyflink.common import Row, Types

MODES = ("STREAMING",)


def build(env) -> None:
    env.set_parallelism(1)
    env.from_collection(
        [Row("a", 1), Row("b", None)], type_info=Types.ROW([Types.STRING(), Types.INT()])
    ).print("row")
    env.from_collection(
        [Row(name="x", n=2)],
        type_info=Types.ROW_NAMED(["name", "n"], [Types.STRING(), Types.INT()]),
    ).print("named")
    env.from_collection(
        [("t", 1.5, True, 7)],
        type_info=Types.TUPLE([Types.STRING(), Types.DOUBLE(), Types.BOOLEAN(), Types.LONG()]),
    ).print("tuple")
