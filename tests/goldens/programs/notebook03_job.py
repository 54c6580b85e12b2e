"""Notebook 03_job_submission_step_by_step: the pipeline of its `%%pipeline job` cell(s)."""

from pyflink.common import Types  # noqa: F401

MODES = ("STREAMING",)
COMPARE = "sorted"


def build(env) -> None:
    env.set_parallelism(2)
    words = env.from_collection(["a b", "b c", "c a"]).flat_map(lambda line: line.split())
    words.map(lambda w: (w, 1)).key_by(lambda t: t[0]).reduce(
        lambda a, b: (a[0], a[1] + b[1])
    ).print()
