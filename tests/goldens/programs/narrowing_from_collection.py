"""Out-of-range values declared BYTE / SHORT / INT in from_collection (converted on the Java side)."""

from pyflink.common import Types

MODES = ("STREAMING",)


def build(env) -> None:
    env.set_parallelism(1)
    env.from_collection([1, 43878, -40000], type_info=Types.SHORT()).print("short")
    env.from_collection([7, 2**31 + 5, -(2**33) - 1], type_info=Types.INT()).print("int")
    env.from_collection([3, 200, -129], type_info=Types.BYTE()).print("byte")
