# SPDX-License-Identifier: BSD-3-Clause
"""python -m dartpy --info: describe the MPI and DART runtime this dartpy runs on.

Run it alone (a singleton) or under mpiexec; unit 0 prints.
"""

from __future__ import annotations

import argparse
import sys

import dartpy


def _print_info() -> int:
    dartpy.init(abort_on_exception=True)
    info = dartpy.info()
    if dartpy.myid() == 0:
        mpi, build = info["mpi"], info["build"]
        lib = mpi["library_version"].strip().splitlines()
        nodes = info["nodes"]
        emul = info["units_per_node_emulation"]
        per_node: dict = {}
        for u, node in enumerate(info["unit_nodes"]):
            per_node.setdefault(node, []).append(u)
        print(
            f"dartpy {info['dartpy']} (distribution dart-mpi), DART interface "
            f"{info['dart_interface']}, DART-MPI library {info['dart_mpi']}"
        )
        print(f"MPI library: {lib[0] if lib else '?'}")
        for extra in lib[1:3]:
            if extra.strip():
                print(f"             {extra.strip()}")
        print(
            f"MPI standard: {mpi['standard']}; built for {build['mpi_flavor']} with "
            f"{build['mpicc']} (launcher {build['mpiexec']})"
        )
        started = "by dartpy" if mpi["started_by_dartpy"] else "before dartpy (e.g. mpi4py)"
        print(f"thread level: {mpi['thread_level']} (MPI initialized {started})")
        print(f"units: {info['units']}")
        emul_txt = f"DART_UNITS_PER_NODE={emul}" if emul else "off"
        print(f"nodes: {nodes} (node emulation: {emul_txt})")
        prog = info["progress_per_node"]
        print(
            "progress processes: "
            + (
                f"{prog} per node (DART_PROGRESS_PER_NODE={prog}; not units, not counted above)"
                if prog
                else "none"
            )
        )
        for node, units in sorted(per_node.items()):
            print(f"  node {node}: units {', '.join(map(str, units))}")
        print(
            "windows: MPI_Win_allocate_shared per node (load/store within a node) + "
            "MPI_Win_create per segment when a team spans nodes; one lock_all epoch per "
            "window, flush-based completion"
        )
        quirks = info["mpi_quirks"]
        print(f"MPI workarounds: {len(quirks) if quirks else 'none'}")
        for q in quirks:
            print(f"  {q}")
        print(f"runtime: {info['config']}")
    sys.stdout.flush()
    dartpy.exit()
    return 0


def main(argv: list | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dartpy", description=__doc__)
    p.add_argument("--info", action="store_true", help="print runtime information")
    args = p.parse_args(argv)
    if args.info:
        return _print_info()
    p.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
