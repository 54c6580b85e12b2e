"""The job of the ``kill -9`` test, run as a program in its own process (its own Spark JVM):
``python -m tests.spark_streaming._kill9_job <checkpoints dir> <files dir> <pause s> [<resume>]``."""

from __future__ import annotations

import sys
import time
from typing import Any

from pyflowkit.common import Configuration, Encoder, Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors.file_system import FileSink, RollingPolicy
from pyflowkit.datastream.functions import SourceFunction

RECORDS = 600


class Numbers(SourceFunction):
    """n0 … n599, ``pause`` seconds apart."""

    def __init__(self, pause: float) -> None:
        self.pause = pause

    def run(self, ctx: Any) -> Any:
        for i in range(RECORDS):
            time.sleep(self.pause)
            yield f"n{i}"


def main(checkpoints: str, files: str, pause: float, resume: str = "") -> None:
    from pyflowkit.spark.executor import execute

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    configuration = Configuration()
    settings = {
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.max-records-per-batch": "25",
        "state.checkpoints.dir": checkpoints,
    }
    if resume:
        settings["execution.savepoint.path"] = resume
    for key, value in settings.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    env.enable_checkpointing(200)
    (
        env.add_source(Numbers(pause), "Numbers", Types.STRING())
        .key_by(lambda e: e, key_type=Types.STRING())
        .map(str.upper, output_type=Types.STRING())
        .sink_to(
            FileSink.for_row_format(files, Encoder.simple_string_encoder())
            .with_rolling_policy(RollingPolicy.on_checkpoint_rolling_policy())
            .build()
        )
    )
    result = execute(env, print_output=False)
    print(f"RESULT {result.job_status}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "")
