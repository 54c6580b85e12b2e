"""Int keys declared key_type=Types.STRING(): PyFlink's STRING key coder fails the job, even
though the keyed map uses no state."""

from pyflink.common import Types

MODES = ("STREAMING",)


def build(env) -> None:
    env.set_parallelism(1)
    (
        env.from_collection([(1, "a"), (2, "b")])
        .key_by(lambda r: r[0], key_type=Types.STRING())
        .map(lambda r: r[1])
        .print("string_key")
    )
