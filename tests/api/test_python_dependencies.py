"""Environment methods for Python dependencies: files, archives, requirements, interpreter,
cached files and close(), on the simulated cluster and on Spark."""

from __future__ import annotations

import importlib
import sys
import zipfile
from typing import Any

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException
from pyflowkit.runtime import MiniCluster
from tests.api.python_deps_job import CachedFileMap, ImportingMap

WORDS = ["a", "bb", "ccc"]


def _env() -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    return env


def _run(env: StreamExecutionEnvironment, fn: Any) -> list[str]:
    env.from_collection(WORDS, type_info=Types.STRING()).map(fn, output_type=Types.STRING()).print()
    run = MiniCluster(seed=0).submit(env, "deps").run()
    return sorted(line.split("> ", 1)[-1] for line in run.printed())


def _module(tmp_path, name: str, body: str = "def transform(s):\n    return s.upper() + '!'\n"):
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    return path


def test_an_added_python_file_is_importable_by_functions_until_close(tmp_path) -> None:
    path = _module(tmp_path, "pf2_shout_mod")
    env = _env()
    env.add_python_file(str(path))
    assert env.get_configuration().get_string("python.files") == str(path)
    assert _run(env, ImportingMap("pf2_shout_mod")) == ["A!", "BB!", "CCC!"]
    env.close()
    sys.modules.pop("pf2_shout_mod", None)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("pf2_shout_mod")


def test_an_added_directory_and_archive_are_importable(tmp_path) -> None:
    pkg = tmp_path / "lib" / "pf2_pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("def transform(s):\n    return s * 2\n")
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("pf2_arch_pkg/__init__.py", "def transform(s):\n    return '<' + s + '>'\n")
        z.writestr("pf2_arch_pkg/data.txt", "payload\n")
    env = _env()
    env.add_python_file(str(tmp_path / "lib"))
    env.add_python_archive(str(archive), "pf2_venv")
    assert env.get_configuration().get_string("python.archives") == f"{archive}#pf2_venv"
    try:
        assert _run(env, ImportingMap("pf2_pkg")) == ["aa", "bbbb", "cccccc"]
        assert _run(_env(), ImportingMap("pf2_venv.pf2_arch_pkg")) == ["<a>", "<bb>", "<ccc>"]
        mod = importlib.import_module("pf2_venv.pf2_arch_pkg")
        with open(mod.__file__.replace("__init__.py", "data.txt")) as f:
            assert f.read() == "payload\n"
    finally:
        env.close()
    with pytest.raises(IllegalArgumentException, match="neither a zip nor a tar archive"):
        _env().add_python_archive(str(pkg / "__init__.py"))
    with pytest.raises(IllegalArgumentException, match="target_dir must be a relative"):
        _env().add_python_archive(str(archive), "../x")
    with pytest.raises(IllegalArgumentException, match="does not exist"):
        _env().add_python_file(str(tmp_path / "missing.py"))


def test_requirements_must_be_met_by_this_interpreter(tmp_path) -> None:
    ok = tmp_path / "ok.txt"
    ok.write_text("# ours\npytest\nhypothesis>=1\n")
    env = _env()
    env.set_python_requirements(str(ok), str(tmp_path))
    assert env.get_configuration().get_string("python.requirements") == f"{ok}#{tmp_path}"
    bad = tmp_path / "bad.txt"
    bad.write_text("pf2-surely-not-installed==1.0\npytest==0.0.1\n")
    env = _env()
    with pytest.raises(UnsupportedOperationException) as info:
        env.set_python_requirements(str(bad))
    message = str(info.value)
    assert "pf2-surely-not-installed==1.0 (not installed)" in message
    assert "pytest==0.0.1 (installed: " in message and "pip install -r" in message
    assert env.get_configuration().get_string("python.requirements") is None


def test_the_simulated_cluster_runs_only_this_interpreter() -> None:
    env = _env()
    env.set_python_executable(sys.executable)
    assert env.get_configuration().get_string("python.executable") == sys.executable
    env.from_collection(WORDS).print()
    MiniCluster(seed=0).submit(env, "same python").run()
    other = _env()
    other.set_python_executable("pf2-no-such-python")
    other.from_collection(WORDS).print()
    with pytest.raises(UnsupportedOperationException, match="'pf2-no-such-python'.*spark.pyspark"):
        MiniCluster(seed=0).submit(other, "other python")


def test_cached_files_through_the_distributed_cache(tmp_path) -> None:
    data = tmp_path / "prefix.txt"
    data.write_text("P\n")
    env = _env()
    env.register_cached_file(str(data), "prefix")
    assert _run(env, CachedFileMap("prefix")) == ["P:a", "P:bb", "P:ccc"]
    with pytest.raises(IllegalArgumentException, match="'prefix' is already registered"):
        env.register_cached_file(str(data), "prefix")
    env = _env()
    env.from_collection(WORDS).map(CachedFileMap("nope")).print()
    run = MiniCluster(seed=0).submit(env, "no such file").run()
    assert run.job_status.value == "FAILED"
    assert "File with name 'nope' is not available" in run.failure_traceback


def test_files_and_cached_files_shipped_to_spark(spark: Any, tmp_path) -> None:
    path = _module(tmp_path, "pf2_spark_mod", "def transform(s):\n    return s.upper()\n")
    data = tmp_path / "pf2_spark_prefix.txt"
    data.write_text("S\n")
    env = _env()
    env.add_python_file(str(path))
    env.register_cached_file(str(data), "prefix")
    words = env.from_collection(WORDS, type_info=Types.STRING())
    out = words.map(ImportingMap("pf2_spark_mod"), output_type=Types.STRING())
    out.map(CachedFileMap("prefix"), output_type=Types.STRING()).print()
    env.close()  # nothing importable in this process: Spark's workers get it by addPyFile
    result = env.execute("deps on spark", spark=spark)
    printed = sorted(line.split("> ", 1)[-1] for line in result.print_lines)
    assert printed == ["S:A", "S:BB", "S:CCC"]
    other = _env()
    other.set_python_executable("/opt/pf2/python")
    other.from_collection(WORDS).print()
    with pytest.raises(
        UnsupportedOperationException, match="spark.pyspark.python='/opt/pf2/python'"
    ):
        other.execute("other python", spark=spark)
