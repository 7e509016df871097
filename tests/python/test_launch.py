# SPDX-License-Identifier: BSD-3-Clause
"""dartpy.launch's command line for progress processes: ``--progress K`` (``-n`` counts
units) and ``--processes-for UNITS UPN K`` (what CMake's test registration asks). The
commands are only printed (``--dry-run``); nothing is launched."""

from __future__ import annotations

import shlex

import pytest

from dartpy import launch


def run_main(capsys, *argv):
    rc = launch.main(list(argv))
    return rc, capsys.readouterr().out.strip()


@pytest.mark.parametrize(
    "units,upn,k,want",
    [
        ("1", "none", "0", 1),
        ("2", "none", "1", 3),
        ("2", "1", "1", 4),
        ("3", "2", "1", 5),
        ("4", "2", "2", 8),
        ("3", "0", "1", 4),
    ],
)
def test_processes_for(capsys, units, upn, k, want):
    rc, out = run_main(capsys, "--processes-for", units, upn, k)
    assert rc == 0 and out == str(want)
    assert int(out) == launch.job_processes(int(units), 0 if upn == "none" else int(upn), int(k))


@pytest.mark.parametrize("flavor", launch.FLAVORS)
@pytest.mark.parametrize("upn,procs", [(None, 3), ("1", 4)])
def test_progress_sets_the_variable_and_the_process_count(capsys, flavor, upn, procs):
    env = ["--env", f"DART_UNITS_PER_NODE={upn}"] if upn else []
    rc, out = run_main(
        capsys,
        "--mpi",
        flavor,
        "--mpiexec",
        "mpiexec",
        "--dry-run",
        "-n",
        "2",
        "--progress",
        "1",
        *env,
        "--",
        "./app",
    )
    assert rc == 0
    cmd = shlex.split(out)
    assert cmd[cmd.index("-n") + 1] == str(procs) and cmd[-1] == "./app"
    forward = launch.Launcher(flavor, "mpiexec").forward("DART_PROGRESS_PER_NODE", "1")
    assert " ".join(forward) in out


def test_without_progress_n_counts_processes(capsys):
    rc, out = run_main(
        capsys,
        "--mpi",
        "mpich",
        "--mpiexec",
        "mpiexec",
        "--dry-run",
        "-n",
        "2",
        "--env",
        "DART_UNITS_PER_NODE=1",
        "--",
        "./app",
    )
    assert rc == 0 and "DART_PROGRESS_PER_NODE" not in out
    cmd = shlex.split(out)
    assert cmd[cmd.index("-n") + 1] == "2"


@pytest.mark.parametrize(
    "argv,part",
    [
        (["--processes-for", "2", "x", "1"], "--processes-for"),
        (["--processes-for", "0", "none", "1"], "bad job shape"),
        (["--processes-for", "2", "none", "-1"], "bad job shape"),
        (
            ["--mpi", "mpich", "--dry-run", "-n", "2", "--progress", "-1", "--", "./app"],
            "--progress: bad job shape",
        ),
        (
            [
                "--mpi",
                "mpich",
                "--dry-run",
                "-n",
                "2",
                "--progress",
                "1",
                "--env",
                "DART_UNITS_PER_NODE=two",
                "--",
                "./app",
            ],
            "--progress",
        ),
    ],
)
def test_bad_shapes_are_usage_errors(capsys, argv, part):
    with pytest.raises(SystemExit) as e:
        launch.main(argv)
    assert e.value.code == 2
    assert part in capsys.readouterr().err
