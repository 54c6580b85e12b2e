"""The project shell a new user meets: packaging, Makefile, CI script, docs, test plumbing."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="GNU make not installed")


@pytest.fixture(scope="module")
def pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11; the checks are the same on 3.10
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()


# --- pyproject.toml ---------------------------------------------------------------------------
def test_build_backend_and_metadata(pyproject: dict) -> None:
    assert pyproject["build-system"]["build-backend"] == "hatchling.build"
    project = pyproject["project"]
    assert project["name"] == "pyflowkit"
    assert project["requires-python"] == ">=3.10"
    assert project["scripts"] == {"pyflowkit": "pyflowkit.cli:main"}


def test_dependencies_have_lower_bounds_not_pins(pyproject: dict) -> None:
    project = pyproject["project"]
    base = {_name(r): r for r in project["dependencies"]}
    expected = {
        "pyspark": "4.0",
        "pandas": "2.2",
        "pyarrow": "18",
        "ipywidgets": "8",
        "anywidget": "0.9",
        "graphviz": "0.20",
        "ipython": "8",
        "protobuf": "6.33.5",
    }
    for name, lower in expected.items():
        assert base.get(name, "").replace(" ", "") == f"{name}>={lower}", name
    assert "graphviz-pure" in base
    extras = project["optional-dependencies"]
    assert {_name(r) for r in extras["lab"]} == {"jupyterlab", "ipykernel"}
    assert {_name(r) for r in extras["test"]} >= {
        "pytest",
        "hypothesis",
        "nbclient",
        "nbformat",
        "ipykernel",
        "ruff",
        "playwright",
    }
    for requirement in [*project["dependencies"], *extras["lab"], *extras["test"]]:
        assert "==" not in requirement and "~=" not in requirement, requirement
        assert "<" not in requirement, f"no upper bounds: {requirement}"


def test_widgets_and_log4j_are_packaged(pyproject: dict) -> None:
    wheel = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["packages"] == ["pyflowkit"]
    assert wheel["force-include"] == {"widgets": "pyflowkit/_widgets"}
    assert (REPO_ROOT / "widgets").is_dir()
    log4j = (REPO_ROOT / "pyflowkit" / "_spark_log4j2.properties").read_text()
    assert re.search(r"^rootLogger\.level\s*=\s*error$", log4j, re.M)
    assert "org.apache.spark.api.python.PythonGatewayServer" in log4j
    assert "target = SYSTEM_ERR" in log4j


def test_ruff_and_pytest_config(pyproject: dict, pytestconfig: pytest.Config) -> None:
    ruff = pyproject["tool"]["ruff"]
    assert ruff["line-length"] == 100 and ruff["target-version"] == "py310"
    markers = {m.split(":", 1)[0].strip() for m in pytestconfig.getini("markers")}
    assert {"spark", "browser", "slow", "cluster"} <= markers
    filters = pytestconfig.getini("filterwarnings")
    assert any("PySpark does not yet fully support pandas" in f for f in filters)


@pytest.mark.slow
def test_wheel_ships_widgets_log4j_and_console_script(tmp_path: Path) -> None:
    """A non-editable install gets widgets/ as pyflowkit/_widgets and the `pyflowkit` command."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), "."],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    (wheel,) = tmp_path.glob("pyflowkit-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        widget_files = {
            "pyflowkit/_widgets/" + p.relative_to(REPO_ROOT / "widgets").as_posix()
            for p in (REPO_ROOT / "widgets").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
        assert widget_files and widget_files <= names
        assert "pyflowkit/_spark_log4j2.properties" in names
        assert "pyflowkit/render/graphviz_backend.py" in names
        assert not any(n.startswith(("tests/", "widgets/", ".venv/")) for n in names)
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        assert "pyflowkit = pyflowkit.cli:main" in zf.read(entry_points).decode()


# --- Makefile ---------------------------------------------------------------------------------
def _write_script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _env_without_make_vars() -> dict[str, str]:
    """The environment minus what an outer `make test PYTEST_ARGS=...` passes down."""
    skip = {
        "MAKEFLAGS",
        "MFLAGS",
        "MAKELEVEL",
        "MAKEOVERRIDES",
        "PYTEST_ARGS",
        "LAB_ARGS",
        "PIP_FLAGS",
    }
    return {k: v for k, v in os.environ.items() if k not in skip}


@pytest.fixture()
def make_sandbox(tmp_path: Path):
    """A copy of the Makefile with a fake `python3` whose venv logs every command it is given."""
    shutil.copy(REPO_ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    log = tmp_path / "calls.log"
    venv_tool = f'echo "$(basename "$0") $*" >> "{log}"\n'
    _write_script(
        tmp_path / "fakebin" / "python3",
        f"""case "$1" in
  -c) exit "${{FAKE_OLD_PYTHON:-0}}" ;;
  -V) echo "Python 3.9.0" ; exit 0 ;;
esac
echo "python3 $*" >> "{log}"
if [ "$1 $2" = "-m venv" ]; then
  mkdir -p "$3/bin"
  for tool in python pyflowkit jupyter ruff; do
    printf '#!/bin/sh\\n{venv_tool}' > "$3/bin/$tool"; chmod +x "$3/bin/$tool"
  done
fi
""",
    )

    def run(*args: str, **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
        before = log.read_text().splitlines() if log.exists() else []
        proc = subprocess.run(
            ["make", "--no-print-directory", f"PYTHON={tmp_path / 'fakebin' / 'python3'}", *args],
            cwd=tmp_path,
            env={**_env_without_make_vars(), **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        after = log.read_text().splitlines() if log.exists() else []
        return proc, after[len(before) :]

    run.root = tmp_path  # type: ignore[attr-defined]
    return run


@needs_make
def test_make_demo_creates_venv_installs_once_and_runs_demo(make_sandbox) -> None:
    proc, calls = make_sandbox("demo")
    assert proc.returncode == 0, proc.stderr
    assert calls[0] == "python3 -m venv .venv"
    assert any(c.startswith("python -m pip install") and c.endswith(" -e .") for c in calls)
    assert calls[-1] == "pyflowkit demo"

    proc, calls = make_sandbox("demo")  # stamp is fresh: no venv, no pip
    assert proc.returncode == 0, proc.stderr
    assert calls == ["pyflowkit demo"]

    later = (make_sandbox.root / ".venv" / ".pyflowkit-base.stamp").stat().st_mtime + 10
    os.utime(make_sandbox.root / "pyproject.toml", (later, later))  # pyproject.toml changed
    proc, calls = make_sandbox("demo")
    assert proc.returncode == 0, proc.stderr
    assert len(calls) == 2 and " -e ." in calls[0] and calls[1] == "pyflowkit demo"


@needs_make
def test_make_test_installs_extras_and_passes_pytest_args(make_sandbox) -> None:
    proc, calls = make_sandbox("test", "PYTEST_ARGS=-x -m 'not browser'")
    assert proc.returncode == 0, proc.stderr
    assert any(c.endswith("-e .[test,lab,notebook]") for c in calls)
    assert calls[-1] == "python -m pytest -q -x -m not browser"
    proc, calls = make_sandbox("demo")  # the test install covers the base install
    assert calls == ["pyflowkit demo"]
    proc, calls = make_sandbox("soak")
    assert calls == ["python -m pytest -q"]
    proc, calls = make_sandbox("lint")
    assert calls == ["ruff check .", "ruff format --check ."]


@needs_make
def test_make_lab_and_bench(make_sandbox) -> None:
    proc, calls = make_sandbox("lab")
    assert proc.returncode == 0, proc.stderr
    assert any(c.endswith("-e .[lab]") for c in calls)
    assert calls[-1].startswith("jupyter lab --ServerApp.root_dir=notebooks")
    bench = make_sandbox.root / "benchmarks"
    bench.mkdir()
    (bench / "bench_a.py").write_text("")
    (bench / "bench_b.py").write_text("")
    proc, calls = make_sandbox("bench")
    assert proc.returncode == 0, proc.stderr
    assert calls == ["python benchmarks/bench_a.py", "python benchmarks/bench_b.py"]


@needs_make
def test_make_rejects_old_python(make_sandbox) -> None:
    proc, calls = make_sandbox("demo", FAKE_OLD_PYTHON="1")
    assert proc.returncode != 0
    assert "needs Python >= 3.10" in proc.stderr
    assert calls == []


@needs_make
def test_make_soak_selects_hypothesis_profile() -> None:
    proc = subprocess.run(
        ["make", "-n", "soak"],
        cwd=REPO_ROOT,
        env=_env_without_make_vars(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "HYPOTHESIS_PROFILE=soak .venv/bin/python -m pytest -q" in proc.stdout


# --- .ci/run ----------------------------------------------------------------------------------
def test_ci_script_shape() -> None:
    script = REPO_ROOT / ".ci" / "run"
    assert os.access(script, os.X_OK), ".ci/run must be executable"
    text = script.read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in text
    assert re.search(r"pip install pyspark.*\d+(\.\d+)? s", text), "cold install time comment"
    subprocess.run(["bash", "-n", str(script)], check=True)


@pytest.fixture()
def ci_sandbox(tmp_path: Path):
    """A copy of .ci/run with fake apt-get, dpkg-query and make that log what they are given."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(REPO_ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    log = tmp_path / "calls.log"
    fakebin = tmp_path / "fakebin"
    _write_script(fakebin / "dpkg-query", "exit 1\n")  # nothing installed
    _write_script(fakebin / "id", "echo 0\n")
    _write_script(
        fakebin / "apt-get",
        f'echo "apt-get $*" >> "{log}"\necho "E: fake apt says no" ; exit "${{FAKE_APT_STATUS:-0}}"\n',
    )
    _write_script(
        fakebin / "make",
        f'echo "make $* CI=$CI cwd=$(pwd) stdin=$(readlink /proc/self/fd/0)" >> "{log}"\n'
        'case "$1" in test) exit "${FAKE_TEST_STATUS:-0}" ;; esac\n',
    )

    def run(**env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
        proc = subprocess.run(
            [str(tmp_path / ".ci" / "run")],
            cwd="/",
            env={**os.environ, "PATH": f"{fakebin}:{os.environ['PATH']}", **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        return proc, log.read_text().splitlines() if log.exists() else []

    run.root = tmp_path  # type: ignore[attr-defined]
    return run


@pytest.mark.skipif(not Path("/proc/self/fd/0").exists(), reason="needs /proc")
def test_ci_installs_missing_packages_then_runs_test_and_lint(ci_sandbox) -> None:
    proc, calls = ci_sandbox()
    assert proc.returncode == 0, proc.stderr
    apt = [c for c in calls if c.startswith("apt-get")]
    assert "update" in apt[0]
    assert "install" in apt[1] and "-y" in apt[1]
    assert apt[1].split()[-3:] == ["graphviz", "chromium", "chromium-driver"]
    makes = [c for c in calls if c.startswith("make")]
    root = ci_sandbox.root
    assert makes == [
        f"make test CI=true cwd={root} stdin=/dev/null",
        f"make lint CI=true cwd={root} stdin=/dev/null",
    ]


@pytest.mark.skipif(not Path("/proc/self/fd/0").exists(), reason="needs /proc")
def test_ci_fails_when_tests_fail_but_still_lints(ci_sandbox) -> None:
    proc, calls = ci_sandbox(FAKE_TEST_STATUS="2")
    assert proc.returncode == 2
    assert [c.split()[1] for c in calls if c.startswith("make")] == ["test", "lint"]


@pytest.mark.skipif(not Path("/proc/self/fd/0").exists(), reason="needs /proc")
def test_ci_stops_with_apt_log_when_apt_fails(ci_sandbox) -> None:
    proc, calls = ci_sandbox(FAKE_APT_STATUS="100")
    assert proc.returncode == 1
    assert "E: fake apt says no" in proc.stderr and "apt-get failed" in proc.stderr
    assert not [c for c in calls if c.startswith("make")]


# --- docs and layout --------------------------------------------------------------------------
def test_readme_sections() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    headings = re.findall(r"^## (.+)$", readme, re.M)
    for heading in (
        "Prerequisites",
        "Quick start",
        "What each command leaves behind",
        "Benchmarks",
        "Running on a cluster",
    ):
        assert heading in headings
    for command in ("make demo", "make test", "make lab"):
        assert command in readme
    assert "Python ≥ 3.10" in readme and "Java 17" in readme


def test_directory_readmes_exist() -> None:
    for directory in ("widgets", "notebooks", "benchmarks"):
        assert (REPO_ROOT / directory / "README.md").read_text().strip()


def test_environment_yml() -> None:
    yaml = pytest.importorskip("yaml")
    env = yaml.safe_load((REPO_ROOT / "environment.yml").read_text())
    deps = env["dependencies"]
    plain = [d for d in deps if isinstance(d, str)]
    assert any(d.startswith("python>=3.10") for d in plain)
    assert "openjdk=17" in plain and "graphviz" in plain and "pip" in plain
    (pip,) = [d["pip"] for d in deps if isinstance(d, dict)]
    assert any(line.startswith("-e .") for line in pip)


def test_gitignore_covers_generated_files() -> None:
    ignored = (REPO_ROOT / ".gitignore").read_text().split()
    for entry in (".venv/", "build/", "__pycache__/", ".pytest_cache/", ".hypothesis/"):
        assert entry in ignored


# --- tests/conftest.py ------------------------------------------------------------------------
def test_hypothesis_profile_follows_environment() -> None:
    hypothesis = pytest.importorskip("hypothesis")
    profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    current = hypothesis.settings()
    assert current.deadline is None
    if profile == "ci":
        assert current.max_examples == 50
    assert hypothesis.settings.get_profile("soak").max_examples >= 1000


def test_spark_fixture_is_quiet_local2(spark) -> None:
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.master") == "local[2]"
    assert conf.get("spark.sql.shuffle.partitions") == "2"
    assert conf.get("spark.ui.showConsoleProgress") == "false"
    java_opts = conf.get("spark.driver.extraJavaOptions")
    assert "_spark_log4j2.properties" in java_opts
    path = Path(java_opts.split("file:", 1)[1].split()[0])
    assert path.is_file() and path.parent.name == "pyflowkit"
    assert spark.range(100).selectExpr("sum(id) AS s").first().s == 4950


@pytest.mark.slow
@pytest.mark.spark
def test_spark_session_start_prints_no_log_noise() -> None:
    """The packaged log4j file silences Spark's WARN lines and the 'default log level' hint."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Java not found")
    conftest = str(Path(__file__).parent / "conftest.py")
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('cf', {conftest!r})\n"
        "cf = importlib.util.module_from_spec(spec); spec.loader.exec_module(cf)\n"
        "s = cf.build_spark_session('quiet-check')\n"
        "print('SUM', s.range(10).selectExpr('sum(id) AS s').first().s)\n"
        "s.stop()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "SUM 45" in proc.stdout
    noise = [
        line
        for line in proc.stderr.splitlines()
        if line.strip() and "Using incubator modules" not in line  # JVM banner, cannot be disabled
    ]
    assert noise == [], "\n".join(noise)
