"""``StateTtlConfig``: time-to-live of keyed state (PyFlink's ``pyflink.datastream.state``).

Configuration only; ``pyflowkit.state.ttl`` gives it behaviour. Mirrors Flink's
``org.apache.flink.api.common.state.StateTtlConfig`` (builder defaults included: update on create
and write, never return expired, processing time, incremental background cleanup of 5 entries).
"""

from __future__ import annotations

from abc import ABC
from enum import Enum
from typing import Any

from pyflowkit.errors import IllegalArgumentException


def _ttl_millis(ttl: Any) -> int:
    if isinstance(ttl, bool):
        raise IllegalArgumentException(f"StateTtlConfig: ttl must be a Time, got {ttl!r}.")
    ms = int(ttl) if isinstance(ttl, int) else int(ttl.to_milliseconds())
    if ms <= 0:
        raise IllegalArgumentException(f"StateTtlConfig: ttl must be positive, got {ttl!r}.")
    return ms


class StateTtlConfig:
    """Time-to-live of one keyed state: how long a value lives after its last update or read.

    Mirrors PyFlink's ``StateTtlConfig`` (Flink's ``StateTtlConfig``).
    """

    class UpdateType(Enum):
        """When the last-access timestamp is refreshed (Flink's ``StateTtlConfig.UpdateType``)."""

        Disabled = 0
        OnCreateAndWrite = 1
        OnReadAndWrite = 2

    class StateVisibility(Enum):
        """Whether an expired value not cleaned up yet may still be read."""

        ReturnExpiredIfNotCleanedUp = 0
        NeverReturnExpired = 1

    class TtlTimeCharacteristic(Enum):
        """The time TTL counts in: processing time only, as Flink."""

        ProcessingTime = 0

    def __init__(
        self,
        update_type: StateTtlConfig.UpdateType,
        state_visibility: StateTtlConfig.StateVisibility,
        ttl_time_characteristic: StateTtlConfig.TtlTimeCharacteristic,
        ttl: Any,
        cleanup_strategies: StateTtlConfig.CleanupStrategies,
    ) -> None:
        self._update_type = update_type
        self._state_visibility = state_visibility
        self._ttl_time_characteristic = ttl_time_characteristic
        self._ttl = ttl
        self._ttl_ms = _ttl_millis(ttl)
        self._cleanup_strategies = cleanup_strategies

    @staticmethod
    def new_builder(ttl: Any) -> StateTtlConfig.Builder:
        return StateTtlConfig.Builder(ttl)

    def get_update_type(self) -> StateTtlConfig.UpdateType:
        return self._update_type

    def get_state_visibility(self) -> StateTtlConfig.StateVisibility:
        return self._state_visibility

    def get_ttl(self) -> Any:
        return self._ttl

    def get_ttl_millis(self) -> int:
        """The TTL in milliseconds (Flink's ``getTtl().toMilliseconds()``)."""
        return self._ttl_ms

    def get_ttl_time_characteristic(self) -> StateTtlConfig.TtlTimeCharacteristic:
        return self._ttl_time_characteristic

    def is_enabled(self) -> bool:
        return self._update_type is not StateTtlConfig.UpdateType.Disabled

    def get_cleanup_strategies(self) -> StateTtlConfig.CleanupStrategies:
        return self._cleanup_strategies

    def __repr__(self) -> str:
        return (
            f"StateTtlConfig<update_type={self._update_type}, state_visibility="
            f"{self._state_visibility},ttl_time_characteristic ={self._ttl_time_characteristic},"
            f"ttl={self._ttl}>"
        )

    class Builder:
        """Builds a ``StateTtlConfig`` (Flink's ``StateTtlConfig.Builder``)."""

        def __init__(self, ttl: Any) -> None:
            _ttl_millis(ttl)
            self._ttl = ttl
            self._update_type = StateTtlConfig.UpdateType.OnCreateAndWrite
            self._state_visibility = StateTtlConfig.StateVisibility.NeverReturnExpired
            self._ttl_time_characteristic = StateTtlConfig.TtlTimeCharacteristic.ProcessingTime
            self._is_cleanup_in_background = True
            self._strategies: dict[Any, Any] = {}

        def set_update_type(self, update_type: StateTtlConfig.UpdateType) -> StateTtlConfig.Builder:
            self._update_type = update_type
            return self

        def update_ttl_on_create_and_write(self) -> StateTtlConfig.Builder:
            return self.set_update_type(StateTtlConfig.UpdateType.OnCreateAndWrite)

        def update_ttl_on_read_and_write(self) -> StateTtlConfig.Builder:
            return self.set_update_type(StateTtlConfig.UpdateType.OnReadAndWrite)

        def set_state_visibility(
            self, state_visibility: StateTtlConfig.StateVisibility
        ) -> StateTtlConfig.Builder:
            self._state_visibility = state_visibility
            return self

        def return_expired_if_not_cleaned_up(self) -> StateTtlConfig.Builder:
            return self.set_state_visibility(
                StateTtlConfig.StateVisibility.ReturnExpiredIfNotCleanedUp
            )

        def never_return_expired(self) -> StateTtlConfig.Builder:
            return self.set_state_visibility(StateTtlConfig.StateVisibility.NeverReturnExpired)

        def set_ttl_time_characteristic(
            self, ttl_time_characteristic: StateTtlConfig.TtlTimeCharacteristic
        ) -> StateTtlConfig.Builder:
            self._ttl_time_characteristic = ttl_time_characteristic
            return self

        def use_processing_time(self) -> StateTtlConfig.Builder:
            return self.set_ttl_time_characteristic(
                StateTtlConfig.TtlTimeCharacteristic.ProcessingTime
            )

        def cleanup_full_snapshot(self) -> StateTtlConfig.Builder:
            """Leave expired entries out of full snapshots (checkpoints and savepoints)."""
            strategies = StateTtlConfig.CleanupStrategies
            self._strategies[strategies.Strategies.FULL_STATE_SCAN_SNAPSHOT] = (
                strategies.EMPTY_STRATEGY
            )
            return self

        def cleanup_incrementally(
            self, cleanup_size: int, run_cleanup_for_every_record: bool
        ) -> StateTtlConfig.Builder:
            """On each access (and each record, if asked) check ``cleanup_size`` entries."""
            if isinstance(cleanup_size, bool) or not isinstance(cleanup_size, int):
                raise IllegalArgumentException(
                    f"cleanup_incrementally: cleanup_size must be an int, got {cleanup_size!r}."
                )
            if cleanup_size < 0:
                raise IllegalArgumentException(
                    f"cleanup_incrementally: cleanup_size must be >= 0, got {cleanup_size}."
                )
            strategies = StateTtlConfig.CleanupStrategies
            self._strategies[strategies.Strategies.INCREMENTAL_CLEANUP] = (
                strategies.IncrementalCleanupStrategy(cleanup_size, run_cleanup_for_every_record)
            )
            return self

        def cleanup_in_rocksdb_compact_filter(
            self, query_time_after_num_entries: int, periodic_compaction_time: Any = None
        ) -> StateTtlConfig.Builder:
            """RocksDB's compaction filter; recorded (heap state, as here, is unaffected in Flink)."""
            from pyflowkit.common.time import Duration

            strategies = StateTtlConfig.CleanupStrategies
            self._strategies[strategies.Strategies.ROCKSDB_COMPACTION_FILTER] = (
                strategies.RocksdbCompactFilterCleanupStrategy(
                    query_time_after_num_entries, periodic_compaction_time or Duration.of_days(30)
                )
            )
            return self

        def disable_cleanup_in_background(self) -> StateTtlConfig.Builder:
            """No default incremental cleanup: only the strategies set explicitly run."""
            self._is_cleanup_in_background = False
            return self

        def set_ttl(self, ttl: Any) -> StateTtlConfig.Builder:
            _ttl_millis(ttl)
            self._ttl = ttl
            return self

        def build(self) -> StateTtlConfig:
            return StateTtlConfig(
                self._update_type,
                self._state_visibility,
                self._ttl_time_characteristic,
                self._ttl,
                StateTtlConfig.CleanupStrategies(
                    dict(self._strategies), self._is_cleanup_in_background
                ),
            )

    class CleanupStrategies:
        """Which cleanups of expired state run (Flink's ``StateTtlConfig.CleanupStrategies``)."""

        class Strategies(Enum):
            FULL_STATE_SCAN_SNAPSHOT = 0
            INCREMENTAL_CLEANUP = 1
            ROCKSDB_COMPACTION_FILTER = 2

        class CleanupStrategy(ABC):
            """Base of the strategies' settings."""

        class EmptyCleanupStrategy(CleanupStrategy):
            """A strategy without settings (full snapshot cleanup)."""

        class IncrementalCleanupStrategy(CleanupStrategy):
            """Check ``cleanup_size`` entries per state access (and per record if asked)."""

            def __init__(self, cleanup_size: int, run_cleanup_for_every_record: bool) -> None:
                self._cleanup_size = cleanup_size
                self._run_cleanup_for_every_record = bool(run_cleanup_for_every_record)

            def get_cleanup_size(self) -> int:
                return self._cleanup_size

            def run_cleanup_for_every_record(self) -> bool:
                return self._run_cleanup_for_every_record

        class RocksdbCompactFilterCleanupStrategy(CleanupStrategy):
            """RocksDB compaction-filter settings."""

            def __init__(
                self, query_time_after_num_entries: int, periodic_compaction_time: Any = None
            ) -> None:
                from pyflowkit.common.time import Duration

                self._query_time_after_num_entries = query_time_after_num_entries
                self._periodic_compaction_time = periodic_compaction_time or Duration.of_days(30)

            def get_query_time_after_num_entries(self) -> int:
                return self._query_time_after_num_entries

            def get_periodic_compaction_time(self) -> Any:
                return self._periodic_compaction_time

        EMPTY_STRATEGY = EmptyCleanupStrategy()

        def __init__(self, strategies: dict[Any, Any], is_cleanup_in_background: bool) -> None:
            self._strategies = strategies
            self._is_cleanup_in_background = is_cleanup_in_background

        def is_cleanup_in_background(self) -> bool:
            return self._is_cleanup_in_background

        def in_full_snapshot(self) -> bool:
            return StateTtlConfig.CleanupStrategies.Strategies.FULL_STATE_SCAN_SNAPSHOT in (
                self._strategies
            )

        def get_incremental_cleanup_strategy(
            self,
        ) -> StateTtlConfig.CleanupStrategies.IncrementalCleanupStrategy | None:
            """The configured one, else Flink's background default (5 entries per access)."""
            strategies = StateTtlConfig.CleanupStrategies
            default = (
                strategies.IncrementalCleanupStrategy(5, False)
                if self._is_cleanup_in_background
                else None
            )
            return self._strategies.get(strategies.Strategies.INCREMENTAL_CLEANUP, default)

        def get_rocksdb_compact_filter_cleanup_strategy(
            self,
        ) -> StateTtlConfig.CleanupStrategies.RocksdbCompactFilterCleanupStrategy | None:
            strategies = StateTtlConfig.CleanupStrategies
            default = (
                strategies.RocksdbCompactFilterCleanupStrategy(1000)
                if self._is_cleanup_in_background
                else None
            )
            return self._strategies.get(strategies.Strategies.ROCKSDB_COMPACTION_FILTER, default)
