"""``SlotSharingGroup`` with its resource spec, and ``MemorySize``.

PyFlink's ``pyflink.datastream.slot_sharing_group`` (Flink's ``api.common.operators.
SlotSharingGroup`` and ``configuration.MemorySize``); the builder's rules are Flink's.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.errors import IllegalArgumentException


class MemorySize:
    """An amount of memory in bytes (PyFlink's ``MemorySize``; Flink's ``MemorySize``)."""

    def __init__(self, bytes_size: int | None = None) -> None:
        if isinstance(bytes_size, bool) or not isinstance(bytes_size, int) or bytes_size < 0:
            raise IllegalArgumentException(
                f"MemorySize: bytes must be an int >= 0, got {bytes_size!r}."
            )
        self._bytes = bytes_size

    @staticmethod
    def of_mebi_bytes(mebi_bytes: int) -> MemorySize:
        return MemorySize(bytes_size=mebi_bytes << 20)

    def get_bytes(self) -> int:
        return self._bytes

    def get_kibi_bytes(self) -> int:
        return self._bytes >> 10

    def get_mebi_bytes(self) -> int:
        return self._bytes >> 20

    def get_gibi_bytes(self) -> int:
        return self._bytes >> 30

    def get_tebi_bytes(self) -> int:
        return self._bytes >> 40

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MemorySize) and self._bytes == other._bytes

    def __hash__(self) -> int:
        return hash(self._bytes)

    def __lt__(self, other: MemorySize) -> bool:
        return self._bytes < other._bytes

    def __repr__(self) -> str:
        return f"{self._bytes} bytes"  # Flink's MemorySize.toString()


class SlotSharingGroup:
    """A named slot sharing group, optionally with the resources of its slot.

    Mirrors PyFlink's ``SlotSharingGroup``; built with ``SlotSharingGroup.builder(name)``."""

    def __init__(
        self,
        name: str,
        cpu_cores: float | None = None,
        task_heap_memory: MemorySize | None = None,
        task_off_heap_memory: MemorySize | None = None,
        managed_memory: MemorySize | None = None,
        external_resources: dict[str, float] | None = None,
    ) -> None:
        self._name = name
        self._cpu_cores = cpu_cores
        self._task_heap_memory = task_heap_memory
        self._task_off_heap_memory = task_off_heap_memory
        self._managed_memory = managed_memory
        self._external_resources = dict(external_resources or {})

    def get_name(self) -> str:
        return self._name

    def get_managed_memory(self) -> MemorySize | None:
        return self._managed_memory

    def get_task_heap_memory(self) -> MemorySize | None:
        return self._task_heap_memory

    def get_task_off_heap_memory(self) -> MemorySize | None:
        return self._task_off_heap_memory

    def get_cpu_cores(self) -> float | None:
        return self._cpu_cores

    def get_external_resources(self) -> dict[str, float]:
        return dict(self._external_resources)

    def _spec(self) -> tuple[Any, ...]:
        resources = tuple(sorted(self._external_resources.items()))
        return (
            self._cpu_cores,
            self._task_heap_memory,
            self._task_off_heap_memory,
            self._managed_memory,
            resources,
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, SlotSharingGroup)
            and self._name == other._name
            and self._spec() == other._spec()
        )

    def __hash__(self) -> int:
        return hash((self._name, self._spec()))

    def __repr__(self) -> str:
        return f"SlotSharingGroup({self._name!r}, cpu_cores={self._cpu_cores})"

    @staticmethod
    def builder(name: str) -> SlotSharingGroup.Builder:
        return SlotSharingGroup.Builder(name)

    class Builder:
        """Flink's ``SlotSharingGroup.Builder``: cpu cores and task heap go together."""

        def __init__(self, name: str) -> None:
            if not isinstance(name, str) or not name:
                raise IllegalArgumentException(
                    f"A slot sharing group needs a non-empty name, got {name!r}."
                )
            self._name = name
            self._cpu_cores: float | None = None
            self._task_heap: MemorySize | None = None
            self._task_off_heap: MemorySize | None = None
            self._managed: MemorySize | None = None
            self._external: dict[str, float] = {}

        def set_cpu_cores(self, cpu_cores: float) -> SlotSharingGroup.Builder:
            if isinstance(cpu_cores, bool) or not isinstance(cpu_cores, (int, float)):
                raise IllegalArgumentException(
                    f"The cpu cores must be a number, got {cpu_cores!r}."
                )
            if cpu_cores <= 0:
                raise IllegalArgumentException("The cpu cores should be positive.")
            self._cpu_cores = float(cpu_cores)
            return self

        def set_task_heap_memory(self, task_heap_memory: MemorySize) -> SlotSharingGroup.Builder:
            if _memory(task_heap_memory, "task heap memory").get_bytes() <= 0:
                raise IllegalArgumentException("The task heap memory should be positive.")
            self._task_heap = task_heap_memory
            return self

        def set_task_heap_memory_mb(self, task_heap_memory_mb: int) -> SlotSharingGroup.Builder:
            if task_heap_memory_mb <= 0:
                raise IllegalArgumentException("The task heap memory should be positive.")
            return self.set_task_heap_memory(MemorySize.of_mebi_bytes(task_heap_memory_mb))

        def set_task_off_heap_memory(
            self, task_off_heap_memory: MemorySize
        ) -> SlotSharingGroup.Builder:
            self._task_off_heap = _memory(task_off_heap_memory, "task off-heap memory")
            return self

        def set_task_off_heap_memory_mb(
            self, task_off_heap_memory_mb: int
        ) -> SlotSharingGroup.Builder:
            return self.set_task_off_heap_memory(MemorySize.of_mebi_bytes(task_off_heap_memory_mb))

        def set_managed_memory(self, managed_memory: MemorySize) -> SlotSharingGroup.Builder:
            self._managed = _memory(managed_memory, "managed memory")
            return self

        def set_managed_memory_mb(self, managed_memory_mb: int) -> SlotSharingGroup.Builder:
            return self.set_managed_memory(MemorySize.of_mebi_bytes(managed_memory_mb))

        def set_external_resource(self, name: str, value: float) -> SlotSharingGroup.Builder:
            self._external[name] = float(value)
            return self

        def build(self) -> SlotSharingGroup:
            """Flink's rule: resources need both cpu cores and task heap memory, or none."""
            if self._cpu_cores is not None and self._task_heap is not None:
                zero = MemorySize(bytes_size=0)
                return SlotSharingGroup(
                    self._name,
                    self._cpu_cores,
                    self._task_heap,
                    self._task_off_heap or zero,
                    self._managed or zero,
                    self._external,
                )
            if (
                self._cpu_cores is not None
                or self._task_heap is not None
                or self._task_off_heap is not None
                or self._managed is not None
                or self._external
            ):
                raise IllegalArgumentException(
                    "The cpu cores and task heap memory are required when specifying the "
                    "resource of a slot sharing group. You need to explicitly configure them "
                    "with positive value."
                )
            return SlotSharingGroup(self._name)


def _memory(value: Any, what: str) -> MemorySize:
    if not isinstance(value, MemorySize):
        raise IllegalArgumentException(f"The {what} must be a MemorySize, got {value!r}.")
    return value
