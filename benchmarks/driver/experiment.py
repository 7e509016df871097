# SPDX-License-Identifier: BSD-3-Clause
"""What the suite, the document and the command line need to know of an experiment;
each experiment module defines one EXPERIMENT, experiments.py lists them."""

from dataclasses import dataclass
from typing import Callable, List


def _no_targets(rows):
    return []


def _no_suite_args(quick):
    return []


@dataclass(frozen=True)
class Experiment:
    name: str  # the subcommand, and <name>-<mpi>.csv/.png/.txt of `all`
    title: str  # the document's heading of its results
    run: Callable  # cmd_<name>(argv) -> exit status
    doc_tables: Callable  # rows -> the Markdown tables of the document
    targets: Callable = _no_targets  # rows -> [(name, measured, verdict)]
    suite_args: Callable[[bool], List[str]] = _no_suite_args  # what `all` adds (quick)
