"""KeyedStream.execute_and_collect(): PyFlink 1.20 yields Row(f0=key, f1=record)."""

from pyflink.common import Types

MODES = ("STREAMING",)


def collect(env) -> list:
    env.set_parallelism(1)
    ds = env.from_collection(
        [("a", 1), ("b", 2), ("a", 3)], type_info=Types.TUPLE([Types.STRING(), Types.INT()])
    )
    keyed = ds.key_by(lambda r: r[0], key_type=Types.STRING())
    with keyed.execute_and_collect() as results:
        return list(results)
