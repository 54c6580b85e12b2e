"""The guard of ``run()``/``execute()`` on the simulated cluster against an endless restart loop.

No Flink class: Flink 1.11 restarts a checkpointed job without a restart strategy forever
(``FixedDelayRestartBackoffTimeStrategy`` with ``Integer.MAX_VALUE`` attempts), which is right for
a cluster and wrong for a notebook cell; the guard stops the loop and says why and how to fix it.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.errors import RestartGuardException
from pyflowkit.operators.user_failure import failed_in, is_own_frame

DEFAULT_MAX_RESTARTS = 100
MAX_RESTARTS_KEY = "pyflowkit.local.max-restarts"


def check_max_restarts(value: Any, where: str) -> int | None:
    """``value`` as a guard: None (no guard) or an int >= 0."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        from pyflowkit.errors import IllegalArgumentException

        raise IllegalArgumentException(
            f"{where}: max_restarts must be None or an int >= 0, got {value!r}."
        )
    return value


def raising_function(cause: BaseException | None) -> str:
    """``name (file.py, line N)`` of the innermost user frame that raised ``cause``."""
    tb = None if cause is None else cause.__traceback__
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if not is_own_frame(code.co_filename):
            found = f"{code.co_name} ({code.co_filename.rsplit('/', 1)[-1]}, line {tb.tb_lineno})"
        tb = tb.tb_next
    return found or "no user function (an injected or runtime failure)"


def keeps_failing(run: Any, restarts: int) -> RestartGuardException:
    """The guard's error: which function keeps failing, the restarts, how to stop the loop."""
    scheduler = run.job_master.scheduler
    e, cause = scheduler.last_failed, scheduler.failure_cause
    where = "" if e is None else f" in {failed_in(e.name, e.failed_operator, e.attempt_number)}"
    what = "" if cause is None else f"{type(cause).__name__}: {cause}"
    message = (
        f"Job '{run.job_graph.job_name}' ({run.job_id}) restarted {restarts} times during this "
        f"run and keeps failing: {what}{where}, raised by {raising_function(cause)}. Its restart "
        f"strategy is {scheduler.restart_strategy}; with checkpointing enabled and no restart "
        "strategy set, Flink restarts a failing job forever (fixed delay, Integer.MAX_VALUE "
        "attempts). Set a restart strategy, e.g. env.set_restart_strategy("
        "RestartStrategies.fixed_delay_restart(3, 1000)) or RestartStrategies.no_restart(), or "
        f"allow more restarts: run(max_restarts=N) or the configuration key '{MAX_RESTARTS_KEY}'."
    )
    return RestartGuardException(run.job_id, message, restarts, cause)
