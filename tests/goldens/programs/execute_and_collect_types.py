"""DataStream.execute_and_collect() of typed values: the Python objects PyFlink returns."""

from pyflink.common import Row, Types

MODES = ("STREAMING",)


def collect(env) -> list:
    env.set_parallelism(1)
    out = []
    for values, type_info in [
        ([1, 2], Types.INT()),
        ([110.1], Types.FLOAT()),
        ([110.1], Types.DOUBLE()),
        ([("a", 1)], Types.TUPLE([Types.STRING(), Types.INT()])),
        ([Row("a", 1)], Types.ROW([Types.STRING(), Types.INT()])),
        ([Row(name="a", n=1)], Types.ROW_NAMED(["name", "n"], [Types.STRING(), Types.INT()])),
        ([True], Types.BOOLEAN()),
    ]:
        with env.from_collection(values, type_info=type_info).execute_and_collect() as results:
            out.extend(results)
    return out
