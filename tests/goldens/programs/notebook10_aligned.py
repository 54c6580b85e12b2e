"""Notebook 10_unaligned_checkpoints: the pipeline of its `%%pipeline aligned` cell
(a word count whose print sink, named `slow sink`, the notebook makes slow with a simulated
record cost; the output does not depend on it): each key's final count, last line."""

from pyflink.common import Types

MODES = ("STREAMING",)
COMPARE = "final_per_key"


def build(env) -> None:
    env.set_parallelism(2)
    env.enable_checkpointing(60_000)
    words = env.from_collection([f"w{i % 7}" for i in range(1000)], type_info=Types.STRING())
    (
        words.map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
        .name("slow sink")
    )
