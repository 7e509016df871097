# SPDX-License-Identifier: BSD-3-Clause
"""The options of the subcommands (benchmarks/run --help lists them) and what the
driver passes on from them to a benchmark program."""


class Usage(Exception):
    """A wrong command line: the driver prints the message and the usage, exits 2."""


FLAGS = ("quick", "baselines_only", "markdown", "no_python", "slurm")  # options without a value


def parse(argv, allowed):
    """The options of one subcommand: allowed holds the names it takes (--build-dir is
    build_dir; "files": it takes plain arguments too, collected in opts["files"]).
    Options not given keep their defaults."""
    opts = {
        "csv": None,
        "mpi": "mpich",
        "quick": False,
        "rounds": None,
        "sizes": None,
        "baselines_only": False,
        "no_python": False,
        "slurm": False,
        "build_dir": None,
        "markdown": False,
        "timeout": 300,
        "files": [],
    }
    it = iter(argv)
    for a in it:
        name = a[2:].replace("-", "_") if a.startswith("--") else None
        if name is None:
            if "files" not in allowed:
                raise Usage(f"unexpected argument {a}")
            opts["files"].append(a)
        elif name not in allowed:
            raise Usage(f"unknown option {a}")
        elif name in FLAGS:
            opts[name] = True
        else:
            v = next(it, None)
            if v is None:
                raise Usage(f"{a} needs a value")
            opts[name] = v
    if opts["mpi"] not in ("mpich", "openmpi"):
        raise Usage("--mpi must be mpich or openmpi")
    return opts


def program_args(opts):
    """--quick and --sizes, as a benchmark program takes them."""
    args = []
    if opts["quick"]:
        args.append("--quick")
    if opts["sizes"]:
        args += ["--sizes", opts["sizes"]]
    return args


def units_list(opts, default):
    """The unit counts of --units (e.g. 2,4), else of default."""
    return [int(u) for u in str(opts.get("units") or default).split(",")]
