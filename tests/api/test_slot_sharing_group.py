"""PyFlink's SlotSharingGroup (with its builder's rules) and MemorySize."""

from __future__ import annotations

import pytest

from pyflowkit.datastream import MemorySize, SlotSharingGroup, StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException


def test_memory_size_units():
    size = MemorySize.of_mebi_bytes(3 * 1024)
    assert size.get_bytes() == 3 * 2**30 and size.get_kibi_bytes() == 3 * 2**20
    assert size.get_mebi_bytes() == 3072 and size.get_gibi_bytes() == 3
    assert MemorySize(bytes_size=2**41).get_tebi_bytes() == 2
    assert MemorySize(bytes_size=5) == MemorySize(bytes_size=5) and repr(size) == "3221225472 bytes"
    with pytest.raises(IllegalArgumentException, match="bytes must be an int >= 0"):
        MemorySize(bytes_size=-1)


def test_builder_with_resources_defaults_off_heap_and_managed_to_zero():
    group = (
        SlotSharingGroup.builder("heavy")
        .set_cpu_cores(1.5)
        .set_task_heap_memory_mb(100)
        .set_external_resource("gpu", 1)
        .build()
    )
    assert group.get_name() == "heavy" and group.get_cpu_cores() == 1.5
    assert group.get_task_heap_memory() == MemorySize.of_mebi_bytes(100)
    assert group.get_task_off_heap_memory() == MemorySize(bytes_size=0)
    assert group.get_managed_memory() == MemorySize(bytes_size=0)
    assert group.get_external_resources() == {"gpu": 1.0}
    plain = SlotSharingGroup.builder("plain").build()
    assert plain.get_cpu_cores() is None and plain.get_task_heap_memory() is None


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda b: b.set_cpu_cores(1).build(), "cpu cores and task heap memory are required"),
        (lambda b: b.set_managed_memory_mb(10).build(), "cpu cores and task heap memory are"),
        (lambda b: b.set_cpu_cores(0), "The cpu cores should be positive"),
        (lambda b: b.set_task_heap_memory_mb(0), "The task heap memory should be positive"),
    ],
)
def test_flinks_builder_rules(build, message):
    with pytest.raises(IllegalArgumentException, match=message):
        build(SlotSharingGroup.builder("g"))


def test_a_stream_joins_a_group_and_registers_its_resources():
    env = StreamExecutionEnvironment.get_execution_environment()
    group = SlotSharingGroup.builder("heavy").set_cpu_cores(2).set_task_heap_memory_mb(64).build()
    mapped = env.from_collection([1, 2]).map(lambda v: v * 2).slot_sharing_group(group)
    assert mapped._transformation.slot_sharing_group == "heavy"
    assert env.get_slot_sharing_groups() == {"heavy": group}
    other = SlotSharingGroup.builder("heavy").set_cpu_cores(4).set_task_heap_memory_mb(64).build()
    with pytest.raises(IllegalArgumentException, match="two different resource spec"):
        mapped.map(lambda v: v).slot_sharing_group(other)
    assert env.register_slot_sharing_group(group) is env
    with pytest.raises(IllegalArgumentException, match="needs a SlotSharingGroup"):
        env.register_slot_sharing_group("heavy")
