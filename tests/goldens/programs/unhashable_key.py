"""A key selector returning a list, with no key type: PyFlink keys by the pickled bytes."""

MODES = ("STREAMING", "BATCH")


def build(env) -> None:
    env.set_parallelism(1)
    (
        env.from_collection([[1, 2], [3, 4], [1, 5], [3, 6], [1, 7]])
        .key_by(lambda v: [v[0]])
        .reduce(lambda a, b: [a[0], a[1] + b[1]])
        .print("by_list")
    )
