"""What a ``FileSink`` is configured with: part-file names, rolling policies, bucket assigners.

Flink's ``OutputFileConfig``, ``DefaultRollingPolicy``, ``OnCheckpointRollingPolicy``,
``DateTimeBucketAssigner`` and ``BasePathBucketAssigner``, with PyFlink's factory names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pyflowkit.errors import IllegalArgumentException


class OutputFileConfig:
    """Flink's ``OutputFileConfig``: part files are named ``<prefix>-…-<counter><suffix>``."""

    def __init__(self, part_prefix: str = "part", part_suffix: str = "") -> None:
        for what, value in (("part prefix", part_prefix), ("part suffix", part_suffix)):
            if not isinstance(value, str):
                raise IllegalArgumentException(
                    f"OutputFileConfig: the {what} must be a str, got {value!r}."
                )
            if "/" in value or "\\" in value:
                raise IllegalArgumentException(
                    f"OutputFileConfig: the {what} {value!r} must not contain a path separator."
                )
        self.part_prefix = part_prefix
        self.part_suffix = part_suffix

    def get_part_prefix(self) -> str:
        return self.part_prefix

    def get_part_suffix(self) -> str:
        return self.part_suffix

    @staticmethod
    def builder() -> OutputFileConfigBuilder:
        return OutputFileConfigBuilder()

    def __repr__(self) -> str:
        return (
            f"OutputFileConfig(part_prefix={self.part_prefix!r}, part_suffix={self.part_suffix!r})"
        )


class OutputFileConfigBuilder:
    """Flink's ``OutputFileConfig.OutputFileConfigBuilder``."""

    def __init__(self) -> None:
        self._prefix = "part"
        self._suffix = ""

    def with_part_prefix(self, prefix: str) -> OutputFileConfigBuilder:
        self._prefix = prefix
        return self

    def with_part_suffix(self, suffix: str) -> OutputFileConfigBuilder:
        self._suffix = suffix
        return self

    def build(self) -> OutputFileConfig:
        return OutputFileConfig(self._prefix, self._suffix)


OutputFileConfig.OutputFileConfigBuilder = OutputFileConfigBuilder  # type: ignore[attr-defined]


@dataclass
class PartFileInfo:
    """Flink's ``PartFileInfo``: what a rolling policy sees of the in-progress part file."""

    bucket_id: str
    creation_time: int
    last_update_time: int
    size: int


class RollingPolicy:
    """Flink's ``RollingPolicy``: when the in-progress part file is closed (and later committed)."""

    def should_roll_on_checkpoint(self, part: PartFileInfo) -> bool:
        raise NotImplementedError

    def should_roll_on_event(self, part: PartFileInfo, element: Any) -> bool:
        raise NotImplementedError

    def should_roll_on_processing_time(self, part: PartFileInfo, current_time: int) -> bool:
        raise NotImplementedError

    @staticmethod
    def default_rolling_policy(
        part_size: int = 1024 * 1024 * 128,
        rollover_interval: int = 60 * 1000,
        inactivity_interval: int = 60 * 1000,
    ) -> DefaultRollingPolicy:
        """PyFlink's ``RollingPolicy.default_rolling_policy`` (sizes in bytes, intervals in ms)."""
        return DefaultRollingPolicy(part_size, rollover_interval, inactivity_interval)

    @staticmethod
    def on_checkpoint_rolling_policy() -> OnCheckpointRollingPolicy:
        return OnCheckpointRollingPolicy()


def _positive(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise IllegalArgumentException(
            f"RollingPolicy.default_rolling_policy(): {what} must be a positive int, got {value!r}."
        )
    return value


class DefaultRollingPolicy(RollingPolicy):
    """Flink's ``DefaultRollingPolicy``: roll past ``part_size`` bytes, after
    ``rollover_interval`` ms since creation or ``inactivity_interval`` ms without writes."""

    def __init__(self, part_size: int, rollover_interval: int, inactivity_interval: int) -> None:
        self.part_size = _positive(part_size, "part_size")
        self.rollover_interval = _positive(rollover_interval, "rollover_interval")
        self.inactivity_interval = _positive(inactivity_interval, "inactivity_interval")

    def should_roll_on_checkpoint(self, part: PartFileInfo) -> bool:
        return part.size > self.part_size

    def should_roll_on_event(self, part: PartFileInfo, element: Any) -> bool:
        return part.size > self.part_size

    def should_roll_on_processing_time(self, part: PartFileInfo, current_time: int) -> bool:
        return (
            current_time - part.creation_time >= self.rollover_interval
            or current_time - part.last_update_time >= self.inactivity_interval
        )

    def __repr__(self) -> str:
        return (
            f"DefaultRollingPolicy(part_size={self.part_size}, rollover_interval="
            f"{self.rollover_interval}, inactivity_interval={self.inactivity_interval})"
        )


class OnCheckpointRollingPolicy(RollingPolicy):
    """Flink's ``OnCheckpointRollingPolicy``: roll on every checkpoint, never otherwise."""

    def should_roll_on_checkpoint(self, part: PartFileInfo) -> bool:
        return True

    def should_roll_on_event(self, part: PartFileInfo, element: Any) -> bool:
        return False

    def should_roll_on_processing_time(self, part: PartFileInfo, current_time: int) -> bool:
        return False

    def __repr__(self) -> str:
        return "OnCheckpointRollingPolicy()"


_JAVA_PATTERN = re.compile(r"'[^']*'|yyyy|MM|dd|HH|mm|ss|SSS|[A-Za-z]")
_STRFTIME = {"yyyy": "%Y", "MM": "%m", "dd": "%d", "HH": "%H", "mm": "%M", "ss": "%S"}


def java_date_format(pattern: str, millis: int, zone: Any) -> str:
    """Format epoch ``millis`` with a ``DateTimeFormatter`` pattern (yyyy MM dd HH mm ss SSS)."""
    moment = datetime.fromtimestamp(millis / 1000, tz=timezone.utc).astimezone(zone)
    out: list[str] = []
    pos = 0
    for m in _JAVA_PATTERN.finditer(pattern):
        out.append(pattern[pos : m.start()])
        token = m.group(0)
        if token.startswith("'"):
            out.append(token[1:-1] or "'")
        elif token == "SSS":
            out.append(f"{millis % 1000:03d}")
        elif token in _STRFTIME:
            out.append(moment.strftime(_STRFTIME[token]))
        else:
            raise IllegalArgumentException(
                f"DateTimeBucketAssigner: pattern letter {token!r} in {pattern!r} is not "
                "supported (use yyyy, MM, dd, HH, mm, ss, SSS and quoted text)."
            )
        pos = m.end()
    out.append(pattern[pos:])
    return "".join(out)


class BucketAssigner:
    """Flink's ``BucketAssigner``: the bucket (sub-directory) each record is written to."""

    def get_bucket_id(self, element: Any, current_processing_time: int) -> str:
        raise NotImplementedError

    @staticmethod
    def base_path_bucket_assigner() -> BasePathBucketAssigner:
        return BasePathBucketAssigner()

    @staticmethod
    def date_time_bucket_assigner(
        format_str: str = "yyyy-MM-dd--HH", timezone_id: str | None = None
    ) -> DateTimeBucketAssigner:
        return DateTimeBucketAssigner(format_str, timezone_id)


class BasePathBucketAssigner(BucketAssigner):
    """Flink's ``BasePathBucketAssigner``: every record in the base path (bucket id ``""``)."""

    def get_bucket_id(self, element: Any, current_processing_time: int) -> str:
        return ""

    def __repr__(self) -> str:
        return "BasePathBucketAssigner()"


class DateTimeBucketAssigner(BucketAssigner):
    """Flink's ``DateTimeBucketAssigner``: the processing time formatted with ``format_str``
    (default ``yyyy-MM-dd--HH``) in ``timezone_id`` (default: the system zone, as Flink)."""

    def __init__(self, format_str: str = "yyyy-MM-dd--HH", timezone_id: str | None = None) -> None:
        if not isinstance(format_str, str) or not format_str:
            raise IllegalArgumentException(
                f"DateTimeBucketAssigner: format_str must be a non-empty str, got {format_str!r}."
            )
        try:
            self.zone: Any = ZoneInfo(timezone_id) if timezone_id else None  # None: system zone
        except (ZoneInfoNotFoundError, ValueError):
            raise IllegalArgumentException(
                f"DateTimeBucketAssigner: unknown timezone_id {timezone_id!r}."
            ) from None
        java_date_format(format_str, 0, self.zone)  # reject unsupported letters now
        self.format_str = format_str
        self.timezone_id = timezone_id

    def get_bucket_id(self, element: Any, current_processing_time: int) -> str:
        return java_date_format(self.format_str, current_processing_time, self.zone)

    def __repr__(self) -> str:
        return f"DateTimeBucketAssigner({self.format_str!r}, {self.timezone_id!r})"
