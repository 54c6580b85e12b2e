"""Types.FLOAT() is a Java float: 110.1 declared FLOAT reaches Python as 110.0999984741211."""

from pyflink.common import Types

MODES = ("STREAMING",)
T = Types.TUPLE([Types.STRING(), Types.FLOAT()])


def build(env) -> None:
    env.set_parallelism(1)
    floats = env.from_collection([110.1, 0.1, 2.5, 1e-3], type_info=Types.FLOAT())
    floats.print("float")
    floats.map(lambda x: repr(x), output_type=Types.STRING()).print("python_repr")
    floats.map(lambda x: x * 2, output_type=Types.DOUBLE()).print("doubled")
    (
        env.from_collection([("k", 110.1), ("k", 0.2), ("k", 0.3)], type_info=T)
        .key_by(lambda r: r[0], key_type=Types.STRING())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .map(lambda r: repr(r[1]), output_type=Types.STRING())
        .print("running_sum")
    )
