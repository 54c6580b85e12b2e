"""Word count, as PyFlink's ``examples/datastream/word_count.py`` writes it (imports changed).

``flat_map`` splits lines, ``map`` pairs each word with 1, ``key_by(word)`` + ``reduce`` sums.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment

JOB_NAME = "Word Count"
LINES = [
    "To be, or not to be,--that is the question:--",
    "Whether 'tis nobler in the mind to suffer",
    "The slings and arrows of outrageous fortune",
    "Or to take arms against a sea of troubles,",
    "And by opposing end them?--To die,--to sleep,--",
    "No more; and by a sleep to say we end",
    "The heartache, and the thousand natural shocks",
    "That flesh is heir to,--'tis a consummation",
    "Devoutly to be wish'd. To die,--to sleep;--",
    "To sleep! perchance to dream:--ay, there's the rub;",
]


def split(line: str) -> Iterator[str]:
    yield from line.split()


def build(env: StreamExecutionEnvironment) -> None:
    """Source → Flat Map → Map → (HASH) Keyed Reduce → print."""
    env.set_parallelism(2)
    ds = env.from_collection(LINES, type_info=Types.STRING())
    ds = (
        ds.flat_map(split)
        .map(lambda i: (i, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda i: i[0])
        .reduce(lambda i, j: (i[0], i[1] + j[1]))
    )
    ds.print()


def expected_output() -> dict[str, int]:
    """Final count per word (the last record the keyed reduce emits for each word)."""
    return dict(Counter(word for line in LINES for word in split(line)))


def check_printed(lines: list[str]) -> bool:
    """Whether print-sink lines (``k> (word,n)``) end with the plain-Python count of every word."""
    final: dict[str, int] = {}
    for line in lines:
        body = line.split("> ", 1)[1] if "> " in line else line
        word, count = body[1:-1].rsplit(",", 1)
        final[word] = max(final.get(word, 0), int(count))
    return final == expected_output()


def main() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    build(env)
    env.execute(JOB_NAME)


if __name__ == "__main__":
    main()
